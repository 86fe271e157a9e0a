import assert from "node:assert/strict";
import { test } from "node:test";
import { checkArtifacts } from "../../checker/checkArtifacts.ts";

// One compute run printing two variants, one JSON line each, and a table tabulated from it.
const STDOUT = ['{"variant": "ols", "coef": 0.1155, "se": 0.0058, "significant": true}', '{"variant": "ols_cluster", "coef": 0.1155, "se": 0.0159, "significant": false}'].join("\n");
const TABLE = "variant,coef,se,significant\nols,0.1155,0.0058,true\nols_cluster,0.1155,0.0159,false\n";
const check = (text: string, path = "table.csv", derivedFrom = [STDOUT]) => checkArtifacts([{ id: "art-1", path, sha256: "a".repeat(64), text, derivedFrom }])[0]!;

test("a CSV tabulated from several printed JSON lines of one output: each row held against its own line, by column", () => {
  assert.deepEqual([check(TABLE).verdict, check(TABLE).values, check(TABLE).notes], ["supported", 8, []]);
  // Seeded: two cells of a row swapped, a boolean flipped, a label cut short, a row's figure from the other line.
  for (const [what, bad, note] of [
    ["cells swapped", TABLE.replace("ols,0.1155,0.0058", "ols,0.0058,0.1155"), /row 1, coef: 0\.0058/],
    ["a boolean flipped", TABLE.replace("0.0058,true", "0.0058,false"), /row 1, significant: false/],
    ["a label cut short", TABLE.replace("ols_cluster,", "ols_clu,"), /row 2, variant: ols_clu/],
    ["a figure from the other row", TABLE.replace("0.0058,true", "0.0159,true"), /row 1, se: 0\.0159/],
  ] as const) {
    const r = check(bad);
    assert.equal(r.verdict, "flagged", what);
    assert.match(r.notes.join("; "), note, what);
  }
});

test("a JSON artifact's leaves held under their keys; a text without JSON is held as words and figures", () => {
  const json = '{"variant": "ols", "coef": 0.1155, "se": 0.0058, "significant": true}';
  assert.equal(check(json, "ols.json", [json]).verdict, "supported");
  const swapped = check('{"variant": "ols", "coef": 0.0058, "se": 0.1155, "significant": true}', "ols.json", [json]);
  assert.deepEqual(swapped.notes, ["$.coef: 0.0058 is not what it was derived from gives", "$.se: 0.1155 is not what it was derived from gives"]);
  const prose = "The ols variant gives a coefficient of 0.1155 with a standard error of 0.0058.";
  assert.equal(check("variant,coef,se\nols,0.1155,0.0058\n", "t.csv", [prose]).verdict, "supported");
  assert.equal(check("variant,coef,se\nol,0.1155,0.0058\n", "t.csv", [prose]).verdict, "flagged", "a word stands whole or not at all");
});

test("a CSV tabulated from printed JSON records holds a row for every record of its columns, or the answer says it omits rows", () => {
  const dropped = "variant,coef,se,significant\nols,0.1155,0.0058,true\n";
  const r = check(dropped);
  assert.equal(r.verdict, "flagged");
  assert.deepEqual(r.notes, ["no row holds the output's record variant ols_cluster, coef 0.1155, se 0.0159, significant false (1 of 2 records missing)"]);
  // Said in the answer: the rows left out are listed, not flagged.
  const said = checkArtifacts([{ id: "art-1", path: "out/table.csv", sha256: "a".repeat(64), text: dropped, derivedFrom: [STDOUT] }], "The table.csv omits ols_cluster, which did not converge.")[0]!;
  assert.deepEqual([said.verdict, said.omittedRows], ["supported", ["variant ols_cluster, coef 0.1155, se 0.0159, significant false"]]);
  // A sentence naming the table without saying it omits rows excuses nothing; a table of prose figures requires no rows.
  assert.equal(checkArtifacts([{ id: "art-1", path: "table.csv", sha256: "a".repeat(64), text: dropped, derivedFrom: [STDOUT] }], "table.csv lists the variants.")[0]!.verdict, "flagged");
  assert.equal(check("variant,coef\nols,0.1155\n", "t.csv", ["ols gives 0.1155 and ols_cluster 0.0159."]).verdict, "supported");
});

test("a JSON array of objects is a table: each object held against its own printed record, and every record of its keys is one of them", () => {
  const rows = '[{"variant": "ols", "coef": 0.1155, "se": 0.0058, "significant": true}, {"variant": "ols_cluster", "coef": 0.1155, "se": 0.0159, "significant": false}]';
  assert.deepEqual([check(rows, "table.json").verdict, check(rows, "table.json").values], ["supported", 8]);
  // The same rows under a key, in another order, from an output that printed them as one document.
  const nested = `{"model": "pooled", "variants": ${JSON.stringify(JSON.parse(rows).reverse())}}`;
  const printed = ["model: pooled", rows].join("\n");
  assert.deepEqual(check(nested, "table.json", [printed]).notes, []);
  // Seeded: a figure from the other row (each value alone is in the output), a boolean flipped, a row dropped.
  for (const [what, bad, note] of [
    ["a figure from the other row", rows.replace('"se": 0.0058', '"se": 0.0159'), /^\$\[0\]\.se: 0\.0159 is not what the output its row was derived from gives$/m],
    ["a figure from the other row, nested", nested.replace('"se":0.0058', '"se":0.0159'), /^\$\.variants\[1\]\.se: 0\.0159/m],
    ["a boolean flipped", rows.replace('"significant": false', '"significant": true'), /^\$\[1\]\.significant: true/m],
    ["a row dropped", `[${JSON.stringify(JSON.parse(rows)[0])}]`, /^no row holds the output's record variant ols_cluster, coef 0\.1155, se 0\.0159, significant false \(1 of 2 records missing\)$/m],
  ] as const) {
    const r = check(bad, "table.json", [printed, STDOUT]);
    assert.equal(r.verdict, "flagged", what);
    assert.match(r.notes.join("\n"), note, what);
  }
  // Said in the answer, a dropped row is listed, not flagged; an array of plain values stays leaves.
  const said = checkArtifacts([{ id: "art-1", path: "table.json", sha256: "a".repeat(64), text: `[${JSON.stringify(JSON.parse(rows)[0])}]`, derivedFrom: [STDOUT] }], "table.json leaves out ols_cluster.")[0]!;
  assert.deepEqual([said.verdict, said.omittedRows], ["supported", ["variant ols_cluster, coef 0.1155, se 0.0159, significant false"]]);
  assert.deepEqual(check('{"ses": [0.0058, 0.0159]}', "ses.json").notes, []);
  assert.deepEqual(check('{"ses": [0.0058, 0.0158]}', "ses.json").notes, ["$.ses[1]: 0.0158 is in nothing it was derived from"]);
});
