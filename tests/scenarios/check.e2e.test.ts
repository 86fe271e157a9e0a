import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedEvent } from "../../events/index.ts";
import { verifyRun } from "../../events/verifyRun.ts";
import { hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { findScenario } from "../../scenarios/index.ts";
import { checkAnswer } from "../../checker/checkAnswer.ts";
import { answerToCheck } from "../../runs/check/answerToCheck.ts";
import { rereadSources } from "../../runs/check/rereadSources.ts";
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

forEachEngine("the run's Checker checks every answer before the seal: the offline scenarios, their sources unchanged, check clean", (ctx) => {
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
      assert.ok(events.indexOf(checks[0]) < seal, "before the seal, in the run's stream");
      const check = checks[0].data;

      // The Checker: an executor under Main, scripted offline and labelled so, its profile bound into its identity.
      const admitted = events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "checker");
      assert.ok(admitted, "a Checker executor was admitted");
      assert.equal(admitted.data.model, "scripted:checker");
      assert.equal(admitted.data.profile?.id, "checker");
      assert.deepEqual(admitted.data.grantedTools, ["check_numbers", "reread_sources", "check_advice", "find_unevidenced_claims"]);
      assert.deepEqual(check.checker, { executorId: admitted.metadata.executorId, model: "scripted:checker", state: "completed" });
      const own = events.filter((e) => e.metadata.executorId === admitted.metadata.executorId);
      assert.deepEqual(
        own.filter((e) => e.type === "tool_completed").map((e) => (e as RecordedEvent<"tool_completed">).data.tool).sort(),
        ["check_advice", "check_numbers", "find_unevidenced_claims", "reread_sources"],
        "its verdicts rest on its check tools' outputs, recorded in its stream",
      );
      assert.ok(events.indexOf(own.at(-1)!) < seal, "its stream is sealed with the run");
      // Main's grant does not hold the Checker's tools.
      const main = events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "main")!;
      assert.ok(!main.data.grantedTools.some((t) => t.startsWith("check_") || t === "reread_sources"), main.data.grantedTools.join(", "));

      // Its verdicts are the deterministic checker's, from the same inputs.
      const readers = await buildRuntime.sourceReaders!(ctx.db.database, lease!);
      const input = await answerToCheck(ctx.store, readers.blobs, runId);
      const deterministic = checkAnswer({ ...input, rereads: await rereadSources(runId, input.claims, readers) });
      assert.deepEqual(check.claims.map((c) => [c.claimId, c.verdict, c.unsupportedNumbers]), deterministic.claims.map((c) => [c.claimId, c.verdict, c.unsupportedNumbers]));
      assert.equal(check.verdict, deterministic.verdict);
      const flagged = check.claims.filter((c) => c.verdict === "flagged");
      assert.deepEqual(flagged, [], "no claim flagged");
      assert.deepEqual(check.advice, []);
      assert.deepEqual(check.summary.unsupportedNumbers, []);
      assert.equal(check.verdict, "supported");
      assert.ok(check.claims.some((c) => c.verdict === "supported" && c.numbers.length > 0) || scenario === "morning-briefing", "numbers were checked");
      assert.ok(check.sources.length > 0 && check.sources.every((s) => s.state === "unchanged" || s.state === "not_reread"), JSON.stringify(check.sources));
      for (const c of check.claims.filter((c) => c.basis !== "observed")) assert.equal(c.verdict, "no_evidence", `${c.claimId} is marked`);

      // The seal covers the executor streams, the Checker's among them.
      assert.deepEqual((await verifyRun(ctx.db.database, runId)).problems, []);
    });
  }
});
