import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import type { Outcome } from "../../actors/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { ToolRegistry, createCorpusTools, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { childrenOf, delegatingMain, delegation, gate, handoffInput, handoffReply, ofType, runtimeWith, streamOf, useReply, within, requestCancel } from "./fixtures.ts";

/**
 * A read-only tool that works until it is aborted: it tells the test when it
 * started (and in which executor) and records that it saw the abort.
 */
function waitingTool() {
  const started = gate();
  const seen = { executorId: "", aborted: false };
  const tool = defineTool({
    name: "slow_lookup",
    description: "Looks something up, slowly.",
    input: z.object({ topic: z.string() }),
    effect: "read_only",
    run: (_input, ctx) =>
      new Promise<string>((_resolve, reject) => {
        seen.executorId = ctx.executorId;
        ctx.signal.addEventListener("abort", () => {
          seen.aborted = true;
          reject(new Error("aborted while looking up"));
        });
        started.open();
      }),
  });
  return { registry: new ToolRegistry().register(...createCorpusTools(), tool), started, seen };
}

/** A Child that starts the slow lookup when its question mentions "slow", else hands off a finding-free handoff. */
const childPolicy: ScriptPolicy = (request) => {
  const task = JSON.stringify(request.messages[0].content);
  if (task.includes("slow") && turnsTaken(request) === 0) return useReply("slow_lookup", { topic: "ADIV" });
  return handoffReply(handoffInput(`[child] handed off for ${task.slice(0, 40)}`));
};

const slowTask = (extra = {}) => delegation("Look this up (slow).", "web-explorer", { tools: ["slow_lookup"], ...extra });

forEachEngine("cancellation from outside", (ctx) => {
  test("cancelling a run while a foreground Child works stops the Child, its tool sees the abort, and both streams say what was in flight", async () => {
    const { registry, started, seen } = waitingTool();
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([slowTask()]) });
    const runtime = runtimeWith(ctx.store, { main, child: new ScriptedModel({ name: "child", policy: childPolicy }) }, { tools: registry });
    const run = await runtime.startRun("What does ADIV cost?");
    await within(10_000, started.opened);

    const posted = await requestCancel(runtime, { runId: run.runId, reason: "the user withdrew the question", by: "operator" });
    assert.equal(posted.ok, true);
    const outcome = await within(1_000, run.result);

    assert.deepEqual(outcome, { kind: "cancelled", reason: "the user withdrew the question", eventId: (outcome as Extract<Outcome, { kind: "cancelled" }>).eventId });
    assert.equal(seen.aborted, true);
    const childStream = await streamOf(ctx.store, seen.executorId);
    assert.deepEqual(childStream.slice(-3).map((e) => e.type), ["cancel_requested", "tool_failed", "cancelled"]);
    const [childCancel] = ofType(childStream, "cancelled");
    assert.equal(childCancel.data.by, "parent");
    // The read-only lookup's intent was still held when it was cancelled: intent and outcome are one row.
    const [lookup] = ofType(childStream, "tool_failed");
    assert.deepEqual(childCancel.data.inFlight, [{ kind: "tool", toolUseId: lookup.data.toolUseId, tool: "slow_lookup" }]);
    assert.equal(lookup.data.reason, "cancelled");
    assert.equal(lookup.data.intent?.effect, "read_only");
    assert.equal(ofType(childStream, "tool_called").filter((e) => e.data.tool === "slow_lookup").length, 0);

    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    assert.deepEqual(mainStream.slice(-2).map((e) => e.type), ["cancel_requested", "cancelled"]);
    const [mainCancel] = ofType(mainStream, "cancelled");
    assert.equal(mainCancel.data.by, "operator");
    assert.deepEqual(mainCancel.data.inFlight?.map((f) => [f.kind, f.childExecutorId]), [["child", seen.executorId]]);
    // Nothing can reach a final executor.
    const late = await requestCancel(runtime, { runId: run.runId, reason: "again", by: "operator" });
    assert.equal(late.ok, false);
  });

  test("cancelling one Child leaves Main going: the delegation fails with the cancellation fact, the sibling's handoff is used", async () => {
    const { registry, started, seen } = waitingTool();
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([slowTask(), delegation("What is ADIV's benchmark?")]) });
    const runtime = runtimeWith(ctx.store, { main, child: new ScriptedModel({ name: "child", policy: childPolicy }) }, { tools: registry });
    const run = await runtime.startRun("What does ADIV cost?");
    await within(10_000, started.opened);

    const posted = await requestCancel(runtime, { runId: run.runId, executorId: seen.executorId, reason: "not needed any more", by: "operator" });
    assert.equal(posted.ok, true);
    const outcome = await within(10_000, run.result);

    assert.equal(outcome.kind, "answer");
    assert.equal(seen.aborted, true);
    assert.equal(ofType(await streamOf(ctx.store, seen.executorId), "cancelled")[0].data.by, "operator");
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    const consumed = ofType(mainStream, "handoff_consumed");
    assert.equal(consumed.length, 2);
    const cancelled = consumed.find((e) => e.data.childExecutorId === seen.executorId)!;
    assert.deepEqual(cancelled.data.childEnded, { outcome: "cancelled", reason: "not needed any more" });
    const sibling = consumed.find((e) => e.data.childExecutorId !== seen.executorId)!;
    assert.equal(sibling.data.childEnded, undefined);
    // Main's next request showed the cancelled delegation as an error result, the sibling's handoff as a result.
    const results = main.requests[1].messages.at(-1)!.content as { tool_use_id: string; is_error?: boolean; content: string }[];
    assert.deepEqual(results.map((r) => r.is_error === true), [true, false]);
    assert.match(results[0].content, /cancelled without a handoff: not needed any more/);
  });

  test("a run cancelled while a background Child works cascades to it; a handoff consumed before stays in Main's stream", async () => {
    const { registry, started, seen } = waitingTool();
    const idle = gate();
    const delegateThenWait: ScriptPolicy = (request, call) => {
      if (call === 0) return { content: [{ type: "tool_use", name: "delegate", input: delegation("What is ADIV's benchmark?") }] };
      if (call === 1) return { content: [{ type: "tool_use", name: "delegate", input: slowTask({ wait: false }) }] };
      idle.open();
      return "(scripted) Waiting for the background Child.";
    };
    const main = new ScriptedModel({ name: "main", policy: delegateThenWait });
    const runtime = runtimeWith(ctx.store, { main, child: new ScriptedModel({ name: "child", policy: childPolicy }) }, { tools: registry });
    const run = await runtime.startRun("What does ADIV cost?");
    await within(10_000, Promise.all([started.opened, idle.opened]));

    await requestCancel(runtime, { runId: run.runId, reason: "stop everything", by: "operator" });
    const outcome = await within(5_000, run.result);

    assert.equal(outcome.kind, "cancelled");
    assert.equal(seen.aborted, true);
    const events = await ctx.store.readRun(run.runId);
    const [first, background] = childrenOf(events, run.mainExecutorId);
    assert.equal(background, seen.executorId);
    assert.equal(ofType(await streamOf(ctx.store, background), "cancelled")[0].data.by, "parent");
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    assert.deepEqual(ofType(mainStream, "handoff_consumed").map((e) => e.data.childExecutorId), [first]);
    assert.deepEqual(ofType(mainStream, "cancelled")[0].data.inFlight?.map((f) => f.childExecutorId), [background]);
  });
});
