import { readdir } from "node:fs/promises";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Runs the benches in bench/, one after another: every module here that exports
 * `main()` is a bench (helper modules export none). Names select some:
 *
 *   npm run bench              all of them
 *   npm run bench -- append    only bench/append.ts
 *   npm run bench -- capacity --size=full
 *
 * Arguments starting with `--` are the benches' own flags (each reads process.argv).
 */
const dir = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2).filter((a) => !a.startsWith("--"));

const files = (await readdir(dir)).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort();
const benches: { name: string; main: () => Promise<void> }[] = [];
let failed = 0;
for (const file of files) {
  const name = basename(file, ".ts");
  if (wanted.length && !wanted.includes(name)) continue;
  try {
    const module = (await import(pathToFileURL(`${dir}${file}`).href)) as { main?: unknown };
    if (typeof module.main === "function") benches.push({ name, main: module.main as () => Promise<void> });
  } catch (e) {
    failed++;
    console.error(`bench ${name} could not be loaded: ${(e as Error).message}`);
  }
}
const unknown = wanted.filter((w) => !benches.some((b) => b.name === w) && files.includes(`${w}.ts`) === false);
if (unknown.length) console.error(`no such bench: ${unknown.join(", ")} (found: ${files.map((f) => basename(f, ".ts")).join(", ")})`);

for (const bench of benches) {
  console.log(`\n=== bench ${bench.name}`);
  try {
    await bench.main();
  } catch (e) {
    failed++;
    console.error(`bench ${bench.name} failed:`, e);
  }
}
process.exitCode = failed || unknown.length ? 1 : 0;
