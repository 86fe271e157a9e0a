import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "../../runs/host/scenarioCorpus.ts";

const entries = (manifest: string) =>
  readFileSync(join(CORPUS_DIR, manifest), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { url: string; file: string; sha256: string; bytes: number });

test("the corpus ships in the repository: every manifest entry is there with the bytes its sha256 names", () => {
  for (const [manifest, folder, count] of [["web/manifest.jsonl", "web", 98], ["pdf/manifest.jsonl", "pdf", 5]] as const) {
    const listed = entries(manifest);
    assert.equal(listed.length, count, manifest);
    for (const e of listed) {
      const bytes = readFileSync(join(CORPUS_DIR, folder, e.file));
      assert.equal(bytes.length, e.bytes, e.file);
      assert.equal(createHash("sha256").update(bytes).digest("hex"), e.sha256, `${e.file}: its bytes changed (line endings converted?)`);
    }
  }
  assert.match(readFileSync(join(CORPUS_DIR, "data", "grunfeld.csv"), "utf8"), /^invest,value,capital,firm,year\n/);
});

test("each part of the corpus carries its licence, and the README names where each comes from", () => {
  const readme = readFileSync(join(CORPUS_DIR, "README.md"), "utf8");
  for (const licence of ["web/LICENSE-readability-test-pages.md", "pdf/LICENSE-pdfjs-test-pdfs.md"]) {
    assert.ok(existsSync(join(CORPUS_DIR, licence)), licence);
    assert.ok(readme.includes(`(${licence})`), `the README links ${licence}`);
  }
  for (const folder of readdirSync(CORPUS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    assert.ok(readme.includes(`\`${folder.name}/`), `the README's table names ${folder.name}/`);
  }
  for (const source of ["mozilla/readability", "mozilla/pdf.js", "statsmodels"]) assert.ok(readme.includes(source), source);
});
