import { test } from "node:test";
import assert from "node:assert/strict";
import { Runtime } from "../../actors/index.ts";
import {
  type BuildRuntime,
  cancelByTakeover,
  findRun,
  hostRun,
  leaseOwner,
  renewLease,
  resumeRun,
  runStatus,
  submitRun,
  takeLease,
} from "../../runs/index.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";
import { gate, ofType } from "../actors/fixtures.ts";
import { slowOrderRun } from "./slowOrderRun.ts";

forEachEngine("hosting a run under its lease", (ctx) => {
  const deps = (buildRuntime: BuildRuntime) => ({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 });

  test("a submitted run is started under its lease, finished, and taken off the queue", async () => {
    const s = slowOrderRun();
    s.open();
    const { runId } = await submitRun(ctx.store, { question: "Place the order." });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const result = await hostRun(deps(s.build), lease!).done;
    assert.equal(result.kind === "finished" && result.outcome.kind, "answer");
    const row = await findRun(ctx.db.database, runId);
    assert.deepEqual([row.state, row.leaseOwner], ["finished", null]);
  });

  test("interrupted with a tool in flight: the tool's outcome is recorded, no new step starts, the run is marked interrupted; resume finishes it without re-running the tool", async () => {
    const s = slowOrderRun();
    const { runId, mainExecutorId } = await submitRun(ctx.store, { question: "Place the order." });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const hosted = hostRun(deps(s.build), lease!);
    await s.counter.started.opened;
    const stopping = hosted.stop("interrupt", 30_000);
    s.open(); // the effect finishes after the interrupt
    const result = await stopping;
    assert.deepEqual(result, { kind: "interrupted", inFlight: [] });

    const events = await ctx.store.readRun(runId);
    assert.equal(ofType(events, "tool_completed").length, 1, "the call in flight recorded its outcome");
    assert.equal(ofType(events, "turn").length, 1, "no turn was taken after the interrupt");
    assert.equal(ofType(events, "run_interrupted").length, 1);
    assert.equal(ofType(events, "run_interrupted")[0].metadata.executorId, mainExecutorId);
    assert.equal((await findRun(ctx.db.database, runId)).state, "interrupted");

    const resumed = await (await resumeRun({ ...deps(s.build) }, runId)).done;
    assert.equal(resumed.kind === "finished" && resumed.outcome.kind, "answer");
    assert.equal(s.counter.runs, 1, "the effect ran once");
    assert.equal(ofType(await ctx.store.readRun(runId), "effect_unknown").length, 0);
  });

  /** A run hosted by "old" with its tool in flight, whose lease then ran out and was taken by "new". */
  async function takenOverInFlight() {
    const s = slowOrderRun();
    const { runId } = await submitRun(ctx.store, { question: "Place the order." });
    // A long time to live: a heartbeat between the expiry and the takeover below would renew the lease.
    const lease = await takeLease(ctx.db.database, { owner: "old", ttlMs: 60_000, runId });
    const hosted = hostRun(deps(s.build), lease!);
    await s.counter.started.opened;
    await renewLease(ctx.db.database, lease!, 0);
    const taken = await takeLease(ctx.db.database, { owner: "new", ttlMs: 60_000, runId });
    return { s, runId, lease: lease!, hosted, taken };
  }

  test("a host whose lease is taken over stops (fenced) and writes nothing more", async () => {
    // Given: the owner's lease ran out and another took the run
    const { s, runId, lease, hosted, taken: other } = await takenOverInFlight();
    assert.equal(other?.epoch, lease.epoch + 1);
    const before = (await ctx.store.readRun(runId)).length;
    s.open(); // the old owner's tool finishes and tries to record its outcome
    const result = await hosted.done;
    assert.equal(result.kind, "fenced");
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await ctx.store.readRun(runId)).length, before);
  });

  test("a host whose run was taken over and finished by the new owner reports fenced, not finished, though its executors saw the run end", async () => {
    // Given: the lease ran out and a new owner took the run and finished it (the call in flight is unknown to it)
    const { s, runId, hosted: old, taken } = await takenOverInFlight();
    const next = await hostRun(deps(s.build), taken!).done;
    assert.equal(next.kind, "finished");
    // When: the old owner's tool returns, after the run has ended
    s.open();
    const result = await old.done;
    assert.equal(result.kind, "fenced", JSON.stringify(result));
    assert.match((result as { reason: string }).reason, /was taken over/);
    const events = await ctx.store.readRun(runId);
    assert.equal(ofType(events, "tool_completed").length, 0, "the old owner recorded nothing");
    assert.equal(ofType(events, "settled").length, 1);
    assert.equal((await findRun(ctx.db.database, runId)).state, "finished");
  });

  test("a run started before runs had rows (no row, its process gone) is adopted by resume and finished; the unknown effect is not re-run", async () => {
    const s = slowOrderRun();
    const crashed = await (await s.build(ctx.store, undefined as never)).startRun("Place the order.");
    await s.counter.started.opened; // the process "dies" here: its tool never returns
    const resumed = await (await resumeRun(deps(slowOrderRun().build), crashed.runId)).done;
    assert.equal(resumed.kind === "finished" && resumed.outcome.kind, "answer");
    const events = await ctx.store.readRun(crashed.runId);
    assert.equal(ofType(events, "effect_unknown").length, 1);
    assert.equal(s.counter.runs, 1);
    assert.equal((await findRun(ctx.db.database, crashed.runId)).mainExecutorId, crashed.mainExecutorId);
  });

  test("cancel --executor on an interrupted run: that Child is cancelled, the resumed Main is told and answers without it", async () => {
    const admitted = gate();
    let children = 0;
    const hosting = await scenarioHosting(ctx.db.database);
    const build: BuildRuntime = (store) =>
      new Runtime({
        store,
        models: { main: offlineResearchModel({ latencyMs: 20 }), child: offlineResearchModel({ latencyMs: 20 }) },
        modelNames: { main: "scripted:main", child: "scripted:child" },
        ...hosting,
        onEvent: (e) => {
          if (e.type === "executor_admitted" && e.data.role === "child" && ++children === 3) admitted.open();
        },
      });
    const { runId } = await submitRun(ctx.store, { question: OFFLINE_QUESTION, options: { mode: "offline" } });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const hosted = hostRun(deps(build), lease!);
    await admitted.opened;
    assert.equal((await hosted.stop("interrupt", 30_000)).kind, "interrupted");

    const tree = (await runStatus(ctx.db.database, ctx.store, runId)).executors!;
    const victim = tree.children.find((c) => c.state === "running")!;
    const { cancelled } = await cancelByTakeover({ database: ctx.db.database, store: ctx.store })({
      runId,
      executorId: victim.executorId,
      reason: "not needed",
      by: "operator",
    });
    assert.deepEqual(cancelled, [victim.executorId]);
    assert.equal((await findRun(ctx.db.database, runId)).state, "interrupted", "a Child's cancel leaves the run as it was");

    const resumed = await (await resumeRun(deps(build), runId)).done;
    assert.equal(resumed.kind === "finished" && resumed.outcome.kind, "answer");
    const events = await ctx.store.readRun(runId);
    // The cancelled Child reaches Main as one fact: its delegation failed, with why, and no handoff to cite (decide/childOutcome.ts).
    const consumed = ofType(events, "handoff_consumed").filter((e) => e.data.childExecutorId === victim.executorId);
    assert.deepEqual(consumed.map((e) => e.data.childEnded), [{ outcome: "cancelled", reason: "not needed" }]);
    assert.match(JSON.stringify(consumed[0].data.handoff), /cancelled: not needed/);
    // The scripted answer counts the handoffs it was built from, not the Children delegated.
    const answer = ofType(events, "settled").find((e) => e.metadata.executorId === lease!.mainExecutorId)!.data.answer as { summary: string };
    assert.match(answer.summary, /from two Children's handoffs; one delegation returned none/);
    assert.doesNotMatch(answer.summary, /three Children/);
    const after = await runStatus(ctx.db.database, ctx.store, runId);
    assert.equal(after.state, "settled");
    assert.equal(after.executors!.children.find((c) => c.executorId === victim.executorId)?.state, "cancelled");
  });
}, { endToEnd: true });
