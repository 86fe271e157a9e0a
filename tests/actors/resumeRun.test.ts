import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedModel } from "../../models/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { childrenOf, delegatingMain, delegation, gate, handoffInput, handoffReply, ofType, runtimeWith, stalledModel, streamOf, within, requestCancel } from "./fixtures.ts";

forEachEngine("a run resumed by another runtime (another process)", (ctx) => {
  test("resumeRun rebuilds Main and its Children: the delegation re-attaches to its Child, which continues from its log", async () => {
    const childCalled = gate();
    const first = runtimeWith(ctx.store, {
      main: new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) }),
      child: stalledModel(() => childCalled.open()),
    });
    const crashed = await first.startRun("What does ADIV cost?");
    await within(10_000, childCalled.opened);
    // The first process "stops" here: its Child's model call never returns.

    const child = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[web-explorer] resumed; nothing looked up"))] });
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) });
    const second = runtimeWith(ctx.store, { main, child });
    const resumed = await second.resumeRun(crashed.runId);
    assert.equal(resumed.mainExecutorId, crashed.mainExecutorId);
    assert.equal((await within(10_000, resumed.result)).kind, "answer");

    const events = await ctx.store.readRun(crashed.runId);
    const children = childrenOf(events, crashed.mainExecutorId);
    assert.equal(children.length, 1, "the Child was re-attached, not admitted again");
    assert.equal(ofType(await streamOf(ctx.store, children[0]), "handoff_committed").length, 1);
    assert.equal(ofType(await streamOf(ctx.store, crashed.mainExecutorId), "handoff_consumed")[0].data.childExecutorId, children[0]);
  });

  test("a cancel requested through another runtime reaches a running executor through the store's notifications", async () => {
    const childCalled = gate();
    const working = runtimeWith(ctx.store, {
      main: new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) }),
      child: stalledModel(() => childCalled.open()),
    });
    const stop = await working.watchInboxes();
    try {
      const run = await working.startRun("What does ADIV cost?");
      await within(10_000, childCalled.opened);
      // Another process: no runner of this run lives in it, so only the log carries the request.
      const operator = runtimeWith(ctx.store, { main: stalledModel(), child: stalledModel() });
      assert.equal((await requestCancel(operator, { runId: run.runId, reason: "stopped from the CLI", by: "operator" })).ok, true);
      const outcome = await within(10_000, run.result);
      assert.equal(outcome.kind, "cancelled");
      const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
      const childStream = await streamOf(ctx.store, childId);
      assert.deepEqual(ofType(childStream, "cancelled")[0].data.inFlight, [{ kind: "model" }]);
    } finally {
      await stop();
    }
  });
});
