import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OFFLINE_SUITE_DIR, loadSuite } from "../../eval/loadSuite.ts";
import { renderComparison } from "../../eval/renderTable.ts";
import { type SuiteRun, runSuite } from "../../eval/runSuite.ts";
import { createEventStore } from "../../events/index.ts";
import { compareIsolation } from "../../projections/index.ts";
import { openblasEnv } from "../../tools/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

// One corpus lookup case and one scenario case, each run delegating and as a single agent, on one database.
describe(`ariadne eval --single-agent: both variants of a lookup and a scenario case, compared (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let workspaces: string;
  let suite: SuiteRun;
  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    workspaces = await mkdtemp(join(tmpdir(), "ariadne-eval-single-"));
    const cases = (await loadSuite(OFFLINE_SUITE_DIR)).filter((c) => c.id === "raspberry-pi-3-price" || c.id === "morning-briefing");
    suite = await runSuite(cases, {
      database: db.database,
      store: createEventStore(db.database),
      lane: "scripted",
      singleAgent: true,
      corpusDir: sharedCorpusDir(),
      workspaceRoot: workspaces,
      settings: { compute: { passEnv: openblasEnv(process.env) } },
    });
  });
  after(async () => {
    await db?.dispose();
    await rm(workspaces, { recursive: true, force: true });
  });

  test("each case is scored as both variants, all passing", () => {
    assert.deepEqual(
      suite.cases.map((c) => [c.caseId, c.variant, c.failures]),
      [["morning-briefing", "delegating", []], ["morning-briefing", "single-agent", []], ["raspberry-pi-3-price", "delegating", []], ["raspberry-pi-3-price", "single-agent", []]],
    );
  });

  test("the single agent's Main reads more than the delegating Main, and the figures are compareIsolation's on the two runs' events", async () => {
    const store = createEventStore(db.database);
    assert.deepEqual(suite.comparisons!.map((c) => c.caseId), ["morning-briefing", "raspberry-pi-3-price"]);
    for (const c of suite.comparisons!) {
      const [d, s] = ["delegating", "single-agent"].map((v) => suite.cases.find((x) => x.caseId === c.caseId && x.variant === v)!);
      assert.equal(c.delegated.runId, d!.runId);
      assert.equal(c.singleAgent.runId, s!.runId);
      assert.equal(c.singleAgent.singleAgent, true, c.caseId);
      assert.equal(c.singleAgent.executors < c.delegated.executors, true, `${c.caseId}: no Children`);
      assert.ok(c.singleAgent.mainInputTokens > c.delegated.mainInputTokens, `${c.caseId}: ${c.singleAgent.mainInputTokens} > ${c.delegated.mainInputTokens}`);
      assert.ok(c.singleAgent.mainPeakInputTokens > c.delegated.mainPeakInputTokens, c.caseId);
      const expected = compareIsolation({ runId: d!.runId, events: await store.readRun(d!.runId) }, { runId: s!.runId, events: await store.readRun(s!.runId) });
      assert.deepEqual({ delegated: c.delegated, singleAgent: c.singleAgent, ratios: c.ratios }, expected);
      assert.deepEqual(c.supportRate, { delegated: d!.supportRate, singleAgent: s!.supportRate });
      // The score's Main figures are Main's executor's alone, as compareIsolation counts them.
      assert.deepEqual([s!.mainInputTokens, s!.mainPeakInputTokens], [c.singleAgent.mainInputTokens, c.singleAgent.mainPeakInputTokens]);
    }
  });

  test("the comparison table has a row a case", () => {
    const table = renderComparison(suite.comparisons!);
    assert.equal(table.length, 4);
    assert.match(table[2]!, /^\| morning-briefing \| [\d,]+ \/ [\d,]+ \(×[\d.]+\) \|/);
  });
});
