import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

const PAGE = `<!doctype html><html lang="en"><head><title>Skerry Lighthouse</title></head><body><article><h1>Skerry Lighthouse</h1>
<p>The Skerry lighthouse stands on a rock two miles off the harbour mouth. It was first lit in 1872 by the Northern Lighthouse Board.
Its lamp is 41 metres above the sea and can be seen for 23 nautical miles.</p>
<p>The last keepers left in 1994, when the light was automated and a solar panel was fitted.</p></article></body></html>`;
const TIDES = "date,high_water_m,low_water_m\n2026-03-01,4.2,0.8\n2026-03-02,4.4,0.7\n2026-03-03,4.1,0.9\n";

/** A suite someone else wrote: its own tiny corpus folder in the shared corpus's layout, and one case a line. */
async function writeSuite(dir: string): Promise<string> {
  const corpus = join(dir, "their-corpus");
  await mkdir(join(corpus, "web", "skerry"), { recursive: true });
  await mkdir(join(corpus, "data"), { recursive: true });
  await writeFile(join(corpus, "web", "skerry", "source.html"), PAGE);
  const sha = createHash("sha256").update(PAGE).digest("hex");
  await writeFile(join(corpus, "web", "manifest.jsonl"), JSON.stringify({ url: "https://pages.corpus.test/skerry/", file: "skerry/source.html", contentType: "text/html", sha256: sha, bytes: Buffer.byteLength(PAGE), title: "Skerry Lighthouse", lang: "en" }) + "\n");
  await writeFile(join(corpus, "data", "tides.csv"), TIDES);
  const cases = [
    { id: "lit", question: "In what year was the Skerry lighthouse first lit?", answer: 1872, answer_type: "number", tolerance: 0, evidence: ["https://pages.corpus.test/skerry/"], corpus: "their-corpus" },
    { id: "lamp-height", question: "How many metres above the sea is the lamp of the Skerry lighthouse?", answer: 41, answer_type: "number", evidence: ["https://pages.corpus.test/skerry/"], corpus: "their-corpus" },
    { id: "board", question: "Which board first lit the Skerry lighthouse?", answer: "Northern Lighthouse Board", answer_type: "text", evidence: ["https://pages.corpus.test/skerry/"], corpus: "their-corpus" },
    { id: "high-water", question: "What was the high water in metres on 2026-03-02 in the tides data?", answer: 4.4, answer_type: "number", tolerance: 0.05, evidence: ["https://data.corpus.test/tides.csv"], corpus: "their-corpus" },
    // A gold answer the page does not give: the grader must mark it wrong, and the command exit 1.
    { id: "lit-wrong-gold", question: "In what year was the Skerry lighthouse first lit?", answer: 1873, answer_type: "number", evidence: ["https://pages.corpus.test/skerry/"], corpus: "their-corpus" },
  ];
  const file = join(dir, "their-suite.jsonl");
  await writeFile(file, cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  return file;
}

describe(`ariadne eval --suite FILE --lane baseline: a suite written by someone else, over its own corpus folder (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    dir = await mkdtemp(join(tmpdir(), "ariadne-their-suite-"));
  });
  after(async () => {
    await db?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("prints its table (a row a case and the overall row) and the last line; the wrong gold answer fails its case and the exit code", async () => {
    const file = await writeSuite(dir);
    const lines: string[] = [];
    const env = { ARIADNE_WORKSPACES: join(dir, "ws"), ...(db.url ? { DATABASE_URL: db.url } : {}) };
    const code = await main(["eval", "--suite", file, "--lane", "baseline", ...(db.url ? [] : ["--data-dir", join(dir, "data")])], (l) => lines.push(l), readConfig(env));
    const text = lines.join("\n");
    assert.match(lines[0]!, /^lane baseline: the scripted baseline researcher answered/);
    assert.match(lines[1]!, /^\| case \| type \| result \| accuracy \| evidence recall \| support \(quotes verbatim\) \| tokens \| cost \| wall \|$/);
    const row = (id: string) => lines.find((l) => l.startsWith(`| ${id} |`)) ?? assert.fail(`no row for ${id}:\n${text}`);
    assert.match(row("lit"), /^\| lit \| number \| pass \| correct \(1872\) \| 100% \| 100% \(\d+\/\d+\) \| [\d,]+ \| \$0\.0000\* \|/);
    assert.match(row("lamp-height"), /\| pass \| correct \(41\) \| 100% \|/);
    assert.match(row("board"), /\| pass \| correct \(holds "Northern Lighthouse Board"\) \| 100% \|/);
    assert.match(row("high-water"), /\| correct \(4\.4\) \| 100% \|/);
    assert.match(row("lit-wrong-gold"), /^\| lit-wrong-gold \| number \| FAIL: wrong: no number within 0 of 1873 \| wrong \| 100% \|/);
    assert.match(text, /\n\| \*\*overall\*\* \| 5 cases \| 4 correct \| 80\.0% \|/);
    assert.equal(lines.at(-1), "4 passed, 1 failed");
    assert.equal(code, 1, "a failed case exits 1");
  });
});
