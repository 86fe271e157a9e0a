import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The shared test corpus, `../shared/corpus/` beside the repository (as CI
 * clones it). Missing, the tests that need it fail with this message rather
 * than passing on nothing.
 */
export function corpusDir(): string {
  const dir = fileURLToPath(new URL("../../../shared/corpus/", import.meta.url));
  if (!existsSync(`${dir}web/manifest.jsonl`)) {
    throw new Error(`the shared test corpus is missing: expected ${dir} (../shared/corpus/ beside the repository, with web/manifest.jsonl)`);
  }
  return dir;
}
