import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * Where the environment may be read: the one configuration module, benchmarks, and tests; and the V8 flags
 * `ariadne` sets on itself before any module loads, which must not override a flag given in NODE_OPTIONS.
 */
const ALLOWED = ["cli/config.ts", "cli/v8Flags.mjs"];
// dist/ is the command line built from these sources (packages bundled in): what it reads is read here.
const SKIPPED_DIRS = new Set(["node_modules", ".git", ".ariadne", "tests", "bench", "dist"]);
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

async function* sources(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) yield* sources(join(dir, entry.name));
    } else if (SOURCE.test(entry.name)) yield join(dir, entry.name);
  }
}

test("the environment is read only in cli/config.ts (and bench/, tests/): every other source gets its configuration passed down", async () => {
  const offenders: string[] = [];
  let scanned = 0;
  for await (const file of sources(ROOT)) {
    const path = relative(ROOT, file).split(sep).join("/");
    scanned++;
    if (ALLOWED.includes(path)) continue;
    (await readFile(file, "utf8")).split("\n").forEach((line, i) => {
      if (/process\.env|Deno\.env/.test(line)) offenders.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.ok(scanned > 100, `the source tree was scanned (${scanned} files)`);
  assert.deepEqual(offenders, [], `read the environment in cli/config.ts and pass the value down:\n${offenders.join("\n")}`);
});
