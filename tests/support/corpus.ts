import { sharedCorpusDir } from "./sharedCorpusDir.ts";

/** The test corpus as a folder path ending in "/" (tests/support/sharedCorpusDir.ts finds it). */
export function corpusDir(): string {
  return sharedCorpusDir().replace(/\/?$/, "/");
}
