import { existsSync } from "node:fs";
import path from "node:path";
import { CORPUS_DIR } from "../../runs/host/scenarioCorpus.ts";

/**
 * The real test material: the repository's corpus/ (see its README), or the
 * folder ARIADNE_CORPUS_DIR names. Missing material fails the test that needs
 * it, naming where it looked.
 */
export function sharedCorpusDir(): string {
  const dir = process.env.ARIADNE_CORPUS_DIR || CORPUS_DIR;
  if (!existsSync(path.join(dir, "web", "manifest.jsonl"))) throw new Error(`the test corpus is missing: expected ${dir} with web/manifest.jsonl (the repository's corpus/, or the folder ARIADNE_CORPUS_DIR names)`);
  return dir;
}
