import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Baseline, compareToBaseline } from "../../eval/compareToBaseline.ts";
import { OFFLINE_SUITE_DIR, loadSuite } from "../../eval/loadSuite.ts";
import { renderTable } from "../../eval/renderTable.ts";
import { type SuiteRun, runSuite } from "../../eval/runSuite.ts";
import { createEventStore } from "../../events/index.ts";
import { openblasEnv } from "../../tools/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

// One database for every case (the first engine configured), each case's run hosted in this process.
describe(`the shipped offline suite runs scripted and holds its stored baseline (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let workspaces: string;
  let suite: SuiteRun;
  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    workspaces = await mkdtemp(join(tmpdir(), "ariadne-eval-"));
    const cases = await loadSuite(OFFLINE_SUITE_DIR);
    suite = await runSuite(cases, {
      database: db.database,
      store: createEventStore(db.database),
      lane: "scripted",
      corpusDir: sharedCorpusDir(),
      workspaceRoot: workspaces,
      settings: { compute: { passEnv: openblasEnv(process.env) } },
    });
  });
  after(async () => {
    await db?.dispose();
    await rm(workspaces, { recursive: true, force: true });
  });

  test("at least ten cases, the three scenarios among them, every one passing", () => {
    assert.ok(suite.cases.length >= 10, `${suite.cases.length} cases`);
    for (const scenario of ["etf-overlap", "pc-measures", "morning-briefing"]) assert.ok(suite.cases.some((c) => c.caseId === scenario), scenario);
    assert.deepEqual(suite.cases.filter((c) => c.failures.length).map((c) => [c.caseId, c.failures]), []);
  });

  test("citations all valid, none fabricated, no advice, in every case", () => {
    for (const c of suite.cases) assert.deepEqual([c.caseId, c.citationValidity, c.fabricatedCitations, c.adviceViolations], [c.caseId, 1, 0, 0]);
  });

  test("the stored baseline's accuracy holds", async () => {
    const baseline = Baseline.parse(JSON.parse(await readFile(join(OFFLINE_SUITE_DIR, "baseline.json"), "utf8")));
    assert.deepEqual(compareToBaseline(suite.cases, baseline), []);
  });

  test("the table has a row a case", () => {
    const table = renderTable(suite.cases);
    assert.equal(table.length, suite.cases.length + 2);
    assert.match(table[2]!, /^\| devsecops-ai-toolchains \| delegating \| pass \|/);
  });
});
