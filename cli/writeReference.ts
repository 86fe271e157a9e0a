/**
 * `npm run docs:cli`: writes docs/reference/cli.md from the command table. `--check` writes nothing and
 * exits 1 when the page differs (tests/docs/cliReference.test.ts does the same).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cliReference } from "./reference.ts";

const page = new URL("../docs/reference/cli.md", import.meta.url);
const generated = cliReference();
if (process.argv.includes("--check")) {
  const same = readFileSync(page, "utf8") === generated;
  console.log(same ? "docs/reference/cli.md is up to date" : "docs/reference/cli.md differs from the command table: run npm run docs:cli");
  process.exitCode = same ? 0 : 1;
} else {
  writeFileSync(page, generated);
  console.log("docs/reference/cli.md written from the command table");
}
