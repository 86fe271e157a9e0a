import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

/** A Child that searches five times a turn and never hands off on its own. */
const searchingForever: ScriptPolicy = (request) => ({
  content: Array.from({ length: 5 }, (_, i) => ({ type: "tool_use" as const, name: "search_corpus", input: { query: `ADIV fees ${turnsTaken(request)}-${i}` } })),
});

/** A Child that searches once, then hands off a finding resting on that search. */
const searchThenHandOff: ScriptPolicy = (request) => {
  if (turnsTaken(request) === 0) return { content: [{ type: "tool_use", name: "search_corpus", input: { query: "ADIV ongoing charge" } }] };
  const [search] = resultsOf(request, "search_corpus");
  return handoffReply(
    handoffInput("[web-explorer] Found it.", [
      { claim: `Finding for: ${JSON.stringify(request.messages[0].content).slice(11, 50)}`, evidence: { toolResults: [search.id], citations: citationsIn(search.output).slice(0, 1) }, confidence: "medium" },
    ]),
  );
};

forEachEngine("exhaustion is not a crash", (ctx) => {
  test("a Child at 25 tool calls hands off partial and low confidence with a caveat naming the limit; Main answers with what it has", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What are ADIV's fees?")]) });
    const child = new ScriptedModel({ name: "child", policy: searchingForever });
    const run = await runtimeWith(ctx.store, { main, child }).startRun("What does ADIV cost?");
    const outcome = await within(20_000, run.result);

    const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    const childStream = await streamOf(ctx.store, childId);
    assert.equal(ofType(childStream, "tool_called").length, 25);
    assert.equal(ofType(childStream, "turn").length, 6);
    // The sixth turn's five calls were refused by governance, before any ran; no seventh model call.
    const refused = ofType(childStream, "tool_failed");
    assert.deepEqual(refused.map((e) => [e.data.reason, e.data.limit]), Array(5).fill(["governance", "executor_tool_calls"]));
    assert.equal(child.requests.length, 6);
    const [committed] = ofType(childStream, "handoff_committed");
    const handoff = committed.data.handoff as { executionState: string; confidence: string; caveats: string[] };
    assert.equal(committed.data.forced, true);
    assert.equal(handoff.executionState, "partial");
    assert.equal(handoff.confidence, "low");
    assert.deepEqual(handoff.caveats, ["stopped at the tool call limit (25 of 25) after 6 turns"]);
    assert.equal(childStream.at(-1)!.type, "settled");

    const answer = answerOf(outcome);
    assert.equal((outcome as { partial?: boolean }).partial, undefined);
    assert.match(answer.sections[0].claims[0].text, /^Nothing usable came back: Stopped before writing a handoff \(stopped at the tool call limit \(25 of 25\) after 6 turns\)/);
  });

  test("Main at its own turn limit settles with a partial answer built from the handoffs it holds", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")], [delegation("What is ADIV's benchmark?")]) });
    const child = new ScriptedModel({ name: "child", policy: searchThenHandOff });
    const run = await runtimeWith(ctx.store, { main, child }, { limits: { main: { maxTurns: 2 } } }).startRun("What does ADIV cost?");
    const outcome = await within(20_000, run.result);

    assert.equal(main.requests.length, 2);
    assert.equal(outcome.kind, "answer");
    assert.equal((outcome as { partial?: boolean }).partial, true);
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    const [settled] = ofType(mainStream, "settled");
    assert.equal(settled.data.partial, true);
    const answer = answerOf(outcome);
    assert.match(answer.summary, /^Partial answer: stopped at the turn limit \(2 of 2\) after 2 tool calls\. Built only from the 2 handoff\(s\) received/);
    const children = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    assert.deepEqual(
      answer.sections[0].claims.map((c) => [c.basis, c.citations]),
      children.map((executor) => ["observed", [{ executor, finding: 0 }]]),
    );
  });
});
