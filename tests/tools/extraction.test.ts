import { test } from "node:test";
import assert from "node:assert/strict";
import { measureExtraction, wordRecovery } from "../../bench/extractionFigures.ts";
import { corpusDir } from "../support/corpus.ts";

test("word recovery counts the expected words (with repeats) that our text holds", () => {
  assert.equal(wordRecovery("a b b c", "b a c"), 0.75);
  assert.equal(wordRecovery("", "anything"), 1);
});

test("extraction over every corpus page: no crash, >= 90% of Readability's expected words on >= 90% of pages, table cells kept", async () => {
  const f = await measureExtraction(corpusDir());
  assert.ok(f.pages >= 90, `${f.pages} pages`);
  assert.deepEqual(
    f.perPage.filter((p) => p.error).map((p) => `${p.name}: ${p.error}`),
    [],
    "no page crashes the extraction",
  );
  const low = f.perPage.filter((p) => p.recovery < 0.9).map((p) => `${p.name} ${(p.recovery * 100).toFixed(0)}%`);
  assert.ok(f.shareAtLeast90 >= 0.9, `only ${(f.shareAtLeast90 * 100).toFixed(1)}% of pages recover >= 90%; below: ${low.join(", ")}`);
  assert.ok(f.pagesWithTables > 0, "the corpus has pages with data tables");
  const lost = f.perPage.filter((p) => p.tableCellsKept < p.tableCells).map((p) => `${p.name} ${p.tableCellsKept}/${p.tableCells}`);
  assert.ok(f.tableCellsKept / f.tableCells >= 0.99, `table cells lost: ${lost.join(", ")}`);
});
