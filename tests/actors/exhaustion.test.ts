import { test } from "node:test";
import assert from "node:assert/strict";
import { intentOf } from "../../events/index.ts";
import { createRunGovernance, resolveCaps } from "../../governance/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

/** A Child that searches five times a turn and never hands off on its own. */
const searchingForever: ScriptPolicy = (request) => ({
  content: Array.from({ length: 5 }, (_, i) => ({ type: "tool_use" as const, name: "search_corpus", input: { query: `ADIV fees ${turnsTaken(request)}-${i}` } })),
});

/** A Child that searches once a turn and never hands off on its own. */
const searchingOncePerTurn: ScriptPolicy = (request) => ({
  content: [{ type: "tool_use", name: "search_corpus", input: { query: `ADIV ongoing charge ${turnsTaken(request)}` } }],
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
    // Intents as recorded: a tool_called, or a read-only call's one row.
    assert.equal(childStream.filter((e) => intentOf(e)).length, 25);
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
    // The 25 results it gathered are not dropped: each is a finding Main cites.
    assert.match((committed.data.handoff as { summary: string }).summary, /^Stopped before writing a handoff \(stopped at the tool call limit \(25 of 25\) after 6 turns\); 25 tool result\(s\) were gathered/);
    assert.equal(answer.sections[0].claims.length, 25);
    assert.ok(answer.sections[0].claims.every((c, finding) => c.basis === "observed" && c.citations[0]?.finding === finding));
  });

  /** A Child stopped by a limit after its searches: its partial handoff cites them, and so can Main's answer. */
  async function stoppedAfterSearches(options: Parameters<typeof runtimeWith>[2], child: ScriptedModel) {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) });
    const run = await runtimeWith(ctx.store, { main, child }, options).startRun("What does ADIV cost?");
    const outcome = await within(20_000, run.result);
    const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    const childStream = await streamOf(ctx.store, childId);
    const searches = ofType(childStream, "tool_completed");
    const [committed] = ofType(childStream, "handoff_committed");
    const handoff = committed.data.handoff as { executionState: string; confidence: string; findings: { claim: string; evidence: { toolResults: string[] } }[] };
    assert.equal(committed.data.forced, true);
    assert.equal(handoff.executionState, "partial");
    assert.equal(handoff.confidence, "low");
    assert.deepEqual(handoff.findings.map((f) => f.evidence.toolResults), searches.map((e) => [e.data.toolUseId]), "each gathered result is a finding citing it");
    for (const [i, f] of handoff.findings.entries()) assert.ok(f.claim.includes(searches[i]!.data.output.slice(0, 40)), "the finding quotes the tool output");
    // Main's answer cites the salvaged findings as observed, and validation accepts them.
    const answer = answerOf(outcome);
    assert.deepEqual(
      answer.sections[0].claims.map((c) => [c.basis, c.citations]),
      handoff.findings.map((_, finding) => ["observed", [{ executor: childId, finding }]]),
    );
    return { searches, childStream };
  }

  test("a Child stopped at its tool call limit after two searches hands off both results as findings Main can cite", async () => {
    const child = new ScriptedModel({ name: "child", policy: searchingOncePerTurn });
    const { searches, childStream } = await stoppedAfterSearches({ limits: { child: { maxToolCalls: 2 } } }, child);
    assert.equal(searches.length, 2);
    assert.equal(ofType(childStream, "tool_failed")[0]?.data.limit, "executor_tool_calls");
  });

  test("a Child stopped at its token limit after one search hands off that result as a finding Main can cite", async () => {
    // Each Child call reports 3,000 tokens against a Child cap of 5,000: the second call does not fit.
    const child = new ScriptedModel({ name: "child", policy: searchingOncePerTurn, usage: { inputTokens: 3_000, outputTokens: 0 } });
    const caps = resolveCaps({ investigate: { maxTokens: 5_000 } });
    const { searches, childStream } = await stoppedAfterSearches(
      { maxTokens: 1_000, governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post, caps }) },
      child,
    );
    assert.equal(searches.length, 1);
    assert.equal(ofType(childStream, "budget_refused")[0]?.data.limit, "executor_tokens");
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
