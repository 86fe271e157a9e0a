/**
 * `npm run test:build`: bundles every test file, and the scripts tests spawn
 * (the CLI, the fault processes), into .test-build/ with esbuild, one build
 * whose shared code lands in chunks. A test file's process then loads a few
 * bundled files instead of compiling some 200 modules through tsx: about half
 * the CPU per file, and a third per CLI start. Packages stay external and load
 * as Node loads them for a user. The npm scripts run the suite from here with
 * ARIADNE_TEST_BUILD set (tests/support/testBuild.ts).
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "../build/bundle.ts";

const OUT = ".test-build";
const SPAWNED = ["cli/start.ts", "tests/faults/faultProcess.ts", "tests/faults/appendCrash.ts"];

const testFiles = readdirSync(join(ROOT, "tests"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(ROOT, "tests", d.name)).filter((f) => f.endsWith(".test.ts")).map((f) => `tests/${d.name}/${f}`));

const started = performance.now();
rmSync(join(ROOT, OUT), { recursive: true, force: true });
await bundle([...testFiles, ...SPAWNED], OUT);
console.log(`test build: ${testFiles.length} test files and ${SPAWNED.length} spawned scripts bundled into .test-build/ in ${Math.round(performance.now() - started)} ms`);
