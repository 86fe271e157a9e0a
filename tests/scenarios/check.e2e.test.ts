import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedEvent } from "../../events/index.ts";
import { verifyRun } from "../../events/verifyRun.ts";
import { hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { findScenario } from "../../scenarios/index.ts";
import { openblasEnv } from "../../tools/index.ts";
import { within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

const SCENARIOS = ["etf-overlap", "pc-measures", "morning-briefing"] as const;

let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-check-"));
});
after(() => rm(workspaces, { recursive: true, force: true }));

forEachEngine("the host checks every answered run: the offline scenarios, their sources unchanged, check clean", (ctx) => {
  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const { runId } = await submitRun(ctx.store, { question: findScenario(scenario)!.question, options: { mode: "offline", scenario } });
      const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
      const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: workspaces, corpusDir: sharedCorpusDir() });
      const result = await within(240_000, hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!).done);
      assert.equal(result.kind, "finished", JSON.stringify(result));

      const events = await ctx.store.readRun(runId);
      const checks = events.filter((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
      assert.equal(checks.length, 1, "one check, recorded by the host");
      const seal = events.findIndex((e) => e.type === "run_sealed");
      assert.ok(events.indexOf(checks[0]) > seal, "after the seal, in the run's stream");
      const check = checks[0].data;
      const flagged = check.claims.filter((c) => c.verdict === "flagged");
      assert.deepEqual(flagged, [], "no claim flagged");
      assert.deepEqual(check.advice, []);
      assert.deepEqual(check.summary.unsupportedNumbers, []);
      assert.equal(check.verdict, "supported");
      assert.ok(check.claims.some((c) => c.verdict === "supported" && c.numbers.length > 0) || scenario === "morning-briefing", "numbers were checked");
      assert.ok(check.sources.length > 0 && check.sources.every((s) => s.state === "unchanged" || s.state === "not_reread"), JSON.stringify(check.sources));
      for (const c of check.claims.filter((c) => c.basis !== "observed")) assert.equal(c.verdict, "no_evidence", `${c.claimId} is marked`);

      // The seal covers the executor streams; the check after it leaves the run intact.
      assert.deepEqual((await verifyRun(ctx.db.database, runId)).problems, []);
    });
  }
});
