import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The real test material (`../shared/corpus/` beside the repository; a git
 * worktree one level deeper finds it one level up; ARIADNE_CORPUS_DIR wins).
 * Missing material fails the test that needs it, naming where it looked.
 */
export function sharedCorpusDir(): string {
  const candidates = [
    process.env.ARIADNE_CORPUS_DIR,
    path.resolve(repoRoot, "../shared/corpus"),
    path.resolve(repoRoot, "../../shared/corpus"),
  ].filter((c): c is string => !!c);
  const found = candidates.find((c) => existsSync(path.join(c, "README.md")));
  if (!found) throw new Error(`the shared test corpus is missing: looked in ${candidates.join(", ")} (set ARIADNE_CORPUS_DIR to its folder)`);
  return found;
}
