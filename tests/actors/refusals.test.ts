import { test } from "node:test";
import assert from "node:assert/strict";
import { ModelCallError, ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import type { ModelRequest, ToolResultBlock } from "../../models/types.ts";
import { citationsIn, lastResultWasError, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { ToolRegistry, createCorpusTools, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import {
  answerOf,
  childrenOf,
  delegatingMain,
  delegation,
  handoffInput,
  handoffReply,
  ofType,
  runtimeWith,
  streamOf,
  useReply,
  within,
} from "./fixtures.ts";

const FEE_MARKER = "[[corpus:adiv-fee-announcement#announcement]]";

/** The corpus tools, each counting how often it really ran. */
function countingCorpus() {
  const runs: Record<string, number> = {};
  const tools = createCorpusTools().map((tool) =>
    defineTool({
      name: tool.name,
      description: tool.description,
      input: tool.input,
      effect: tool.effect,
      run: (input, ctx) => {
        runs[tool.name] = (runs[tool.name] ?? 0) + 1;
        return tool.run(input, ctx);
      },
    }),
  );
  return { registry: new ToolRegistry().register(...tools), runs };
}

/** The tool results in the last user message of a request. */
function lastResults(request: ModelRequest): ToolResultBlock[] {
  const last = request.messages.at(-1)!;
  assert.equal(last.role, "user");
  return Array.isArray(last.content) ? last.content.filter((b): b is ToolResultBlock => b.type === "tool_result") : [];
}

/** A Child that quotes the fee announcement, then hands off what `attempt` builds from the quote. */
function quotingChild(attempt: (quote: { id: string; marker: string }, request: ModelRequest) => unknown): ScriptPolicy {
  return (request) => {
    if (turnsTaken(request) === 0) return useReply("quote_passage", { doc_id: "adiv-fee-announcement", contains: "reduced from 0.38%" });
    const [quote] = resultsOf(request, "quote_passage");
    return handoffReply(attempt({ id: quote.id, marker: citationsIn(quote.output)[0] }, request));
  };
}

const feeFinding = (evidence: { toolResults: string[]; citations: string[] }) => ({
  claim: "ADIV's ongoing charge falls from 0.38% to 0.29% a year on 1 October 2026.",
  evidence,
  confidence: "high",
});

async function runWith(ctx: { store: Parameters<typeof runtimeWith>[0] }, childPolicy: ScriptPolicy, task = delegation("What are ADIV's fees?")) {
  const { registry, runs } = countingCorpus();
  const child = new ScriptedModel({ name: "child", policy: childPolicy });
  const runtime = runtimeWith(ctx.store, { main: new ScriptedModel({ name: "main", policy: delegatingMain([task]) }), child }, { tools: registry });
  const run = await runtime.startRun("What should I know about ADIV?");
  const outcome = await within(10_000, run.result);
  const events = await ctx.store.readRun(run.runId);
  const [childId] = childrenOf(events, run.mainExecutorId);
  return { run, outcome, events, child, childId, childStream: await streamOf(ctx.store, childId), runs };
}

forEachEngine("refusals in code", (ctx) => {
  test("an ungranted tool is refused before it runs and the model is told what it may use instead", async () => {
    const policy: ScriptPolicy = (request) =>
      turnsTaken(request) === 0
        ? useReply("compute_overlap", { portfolio_doc: "user-portfolio", etf_doc: "adiv-holdings" })
        : handoffReply(handoffInput("[web-explorer] compute_overlap was refused; nothing computed."));
    const { outcome, child, childStream, runs } = await runWith(ctx, policy);

    const [admitted] = ofType(childStream, "executor_admitted");
    assert.deepEqual(admitted.data.grantedTools, ["search_corpus", "read_document", "quote_passage"]);
    assert.ok(!child.requests[0].tools.some((t) => t.name === "compute_overlap"));

    const [refusal] = ofType(childStream, "tool_failed");
    assert.equal(refusal.data.tool, "compute_overlap");
    assert.equal(refusal.data.reason, "not_granted");
    assert.equal(ofType(childStream, "tool_called").length, 0);
    assert.equal(runs.compute_overlap, undefined);

    const [result] = lastResults(child.requests[1]);
    assert.equal(result.tool_use_id, refusal.data.toolUseId);
    assert.equal(result.is_error, true);
    assert.match(result.content, /Tool "compute_overlap" is not granted to this executor, so the call was not run/);
    assert.match(result.content, /Tools granted to this executor: search_corpus, read_document, quote_passage\./);
    assert.equal(outcome.kind, "answer");
  });

  test("a Child cannot delegate: delegate is refused at admission, not offered, and refused in code when called", async () => {
    const policy: ScriptPolicy = (request) =>
      turnsTaken(request) === 0
        ? useReply("delegate", delegation("Find the factsheet for me.", "web-explorer"))
        : handoffReply(handoffInput("[general] could not delegate; nothing done."));
    const task = delegation("Look into ADIV.", "general", { tools: ["search_corpus", "delegate"] });
    const { events, outcome, child, childId, childStream } = await runWith(ctx, policy, task);

    const [admitted] = ofType(childStream, "executor_admitted");
    assert.equal(admitted.data.depth, 1);
    assert.deepEqual(admitted.data.grantedTools, ["search_corpus"]);
    assert.deepEqual(admitted.data.refusedTools, [{ name: "delegate", reason: "an executor at depth 1 may not delegate (maxDepth 1)" }]);
    assert.deepEqual(child.requests[0].tools.map((t) => t.name), ["search_corpus", "handoff"]);

    const [refusal] = ofType(childStream, "tool_failed");
    assert.deepEqual([refusal.data.tool, refusal.data.reason], ["delegate", "not_granted"]);
    assert.equal(ofType(childStream, "tool_called").length, 0);
    assert.match(lastResults(child.requests[1])[0].content, /Tool "delegate" is not granted[\s\S]*Tools granted to this executor: search_corpus\./);
    // Nothing was admitted below the Child.
    assert.equal(ofType(events, "executor_admitted").length, 2);
    assert.deepEqual(childrenOf(events, childId), []);
    assert.equal(outcome.kind, "answer");
  });

  test("a handoff with a citation marker in toolResults is repaired on the second try with its evidence intact", async () => {
    const policy = quotingChild(({ id, marker }, request) =>
      // First try: the marker sits among the tool results. After the feedback: moved, nothing dropped.
      lastResultWasError(request)
        ? handoffInput("[web-explorer] Fee cut announced.", [feeFinding({ toolResults: [id], citations: [marker] })])
        : handoffInput("[web-explorer] Fee cut announced.", [feeFinding({ toolResults: [id, marker], citations: [] })]),
    );
    const { events, run, outcome, child, childId, childStream } = await runWith(ctx, policy);

    assert.deepEqual(childStream.map((e) => e.type), [
      "executor_admitted",
      "turn",
      // The read-only fetch: its intent and outcome in one row.
      "tool_completed",
      "turn",
      "tool_failed",
      "turn",
      "handoff_committed",
      "settled",
    ]);
    const [rejection] = ofType(childStream, "tool_failed");
    assert.equal(rejection.data.reason, "rejected_result");
    assert.equal(rejection.data.tool, "handoff");
    const feedback = rejection.data.message;
    const quoteId = ofType(childStream, "tool_completed")[0].data.toolUseId;
    assert.match(feedback, /"\[\[corpus:adiv-fee-announcement#announcement\]\]" is a citation marker, not a tool-result id\. Move it to findings\[0\]\.evidence\.citations/);
    assert.match(feedback, /evidence\.toolResults: tool_use ids of your own successful tool calls/);
    assert.match(feedback, /evidence\.citations: citation markers that appeared in your tool outputs/);
    assert.match(feedback, /move it to the right field instead of deleting it/);
    assert.ok(feedback.includes(`findings[0].evidence.toolResults: "${quoteId}"`), "the valid tool result is named as one to keep");
    assert.doesNotMatch(feedback, /empty|\[\]/i);

    // The model saw exactly that feedback as the handoff's error result.
    assert.equal(child.requests.length, 3);
    const [shown] = lastResults(child.requests[2]);
    assert.deepEqual([shown.is_error, shown.content], [true, feedback]);

    const [committed] = ofType(childStream, "handoff_committed");
    assert.equal(committed.data.forced, false);
    assert.equal(committed.data.repairs, 1);
    assert.equal(committed.data.handoff.executionState, "completed");
    const [finding] = committed.data.handoff.findings as { evidence: unknown }[];
    assert.deepEqual(finding.evidence, { toolResults: [quoteId], citations: [FEE_MARKER] });

    const consumed = ofType(await streamOf(ctx.store, run.mainExecutorId), "handoff_consumed");
    assert.deepEqual(consumed.map((e) => [e.data.childExecutorId, e.data.handoffEventId]), [[childId, committed.eventId]]);
    assert.equal(outcome.kind, "answer");
    assert.equal(ofType(events, "handoff_committed").length, 1);
  });

  test("a handoff never repaired is committed as a forced partial handoff that keeps the valid evidence, and Main still consumes it", async () => {
    const policy = quotingChild(({ id, marker }) =>
      handoffInput("[web-explorer] Fee cut announced.", [
        feeFinding({ toolResults: [id, "toolu_made_up"], citations: [marker] }),
        { claim: "The factsheet agrees.", evidence: { toolResults: ["toolu_never_ran"], citations: [] }, confidence: "medium" },
      ]),
    );
    const { run, outcome, child, childId, childStream } = await runWith(ctx, policy);

    // The first try and maxHandoffRepairs (2) repairs, all rejected; no fourth handoff is asked for.
    assert.equal(child.requests.length, 4);
    const rejections = ofType(childStream, "tool_failed");
    assert.deepEqual(rejections.map((e) => e.data.reason), ["rejected_result", "rejected_result", "rejected_result"]);
    assert.deepEqual(childStream.slice(-2).map((e) => e.type), ["handoff_committed", "settled"]);

    const [committed] = ofType(childStream, "handoff_committed");
    const handoff = committed.data.handoff as {
      executionState: string;
      confidence: string;
      gaps: string[];
      findings: { claim: string; evidence: unknown; confidence: string }[];
    };
    assert.equal(committed.data.forced, true);
    assert.equal(committed.data.repairs, 3);
    assert.equal(handoff.executionState, "partial");
    assert.equal(handoff.confidence, "low");
    assert.equal(handoff.gaps.at(-1), "handoff not accepted after 3 attempts");
    const quoteId = ofType(childStream, "tool_completed")[0].data.toolUseId;
    assert.deepEqual(handoff.findings[0].evidence, { toolResults: [quoteId], citations: [FEE_MARKER] });
    assert.equal(handoff.findings[0].claim, feeFinding({ toolResults: [], citations: [] }).claim);
    // A finding left without verifiable evidence keeps its claim, at low confidence.
    assert.deepEqual(handoff.findings[1], { claim: "The factsheet agrees.", evidence: { toolResults: [], citations: [] }, confidence: "low" });

    const [consumed] = ofType(await streamOf(ctx.store, run.mainExecutorId), "handoff_consumed");
    assert.equal(consumed.data.childExecutorId, childId);
    assert.equal(consumed.data.handoffEventId, committed.eventId);
    assert.deepEqual(consumed.data.handoff, committed.data.handoff);
    assert.equal(outcome.kind, "answer");
    const answer = answerOf(outcome);
    assert.ok(answer.sections[0].claims.some((c) => c.citations.some((x) => x.executor === childId)));
  });
  test("failed model calls stop at the Child's own limit and end in a forced partial handoff", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) });
    const child = new ScriptedModel({
      name: "child",
      policy: () => new ModelCallError({ kind: "overloaded", retryable: true, message: "overloaded (scripted)" }),
    });
    const runtime = runtimeWith(ctx.store, { main, child }, { limits: { child: { maxFailedModelCalls: 2 } } });
    const run = await runtime.startRun("What is ADIV's ongoing charge?");
    const outcome = await within(10_000, run.result);

    const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    const childStream = await streamOf(ctx.store, childId);
    assert.deepEqual(childStream.map((e) => e.type), ["executor_admitted", "turn_failed", "turn_failed", "handoff_committed", "settled"]);
    const [committed] = ofType(childStream, "handoff_committed");
    assert.equal(committed.data.forced, true);
    assert.equal((committed.data.handoff as { confidence: string }).confidence, "low");
    assert.equal(outcome.kind, "answer");
  });
});
