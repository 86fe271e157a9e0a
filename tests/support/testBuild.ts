import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Where `npm test` bundled the test files and the scripts they spawn
 * (tests/build.ts), or undefined when a test file runs from its source under
 * tsx. Set by the npm scripts right after the build, so it is never stale.
 */
export const TEST_BUILD = process.env.ARIADNE_TEST_BUILD ? resolve(ROOT, process.env.ARIADNE_TEST_BUILD) : undefined;

/** The bundled form of a source entry (repo-relative .ts) in the test build, if the suite runs from one. */
export function builtEntry(entry: string): string | undefined {
  return TEST_BUILD && join(TEST_BUILD, entry.replace(/\.ts$/, ".mjs"));
}

/**
 * The script that runs the CLI in a test's child process: the bundled CLI in
 * the test build (it starts in about a third of the CPU time), else cli/bin.mjs,
 * the `ariadne` command: its build (dist/) when no source is newer, else the
 * sources through tsx.
 */
export const CLI_SCRIPT = builtEntry("cli/start.ts") ?? join(ROOT, "cli/bin.mjs");
