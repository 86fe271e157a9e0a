import { test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { verifyRun } from "../../events/verifyRun.ts";
import { readRunBudget, resolveCaps } from "../../governance/index.ts";
import { type ModelRequest, ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { cancelRun, hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, delegatingMain, delegation, eventually, firstMessageText, gate, handoffInput, handoffReply, handoffsIn, ofType, streamOf, textsOf, useReply, within } from "./fixtures.ts";

const QUESTION = "What does ADIV cost?";
const CHILD_TASK = delegation("What is ADIV's ongoing charge? Delegate the corpus search.", "general", { tools: ["search_corpus", "delegate"] });
const GRANDCHILD_QUESTION = "Find ADIV's ongoing charge in the corpus.";

const isMain = (r: ModelRequest) => r.tools.some((t) => t.name === "answer");
const mayDelegate = (r: ModelRequest) => r.tools.some((t) => t.name === "delegate");

/**
 * One scripted model for the whole tree, as a hosted run has: Main delegates
 * one Child (asking for delegate among its tools) and answers from its
 * handoff; a Child that holds delegate delegates the search to a grandchild
 * and hands off what came back; one that does not searches itself (`leaf`).
 */
function treePolicy(leaf: ScriptPolicy): ScriptPolicy {
  const main = delegatingMain([CHILD_TASK]);
  return (request, i) => {
    if (isMain(request)) return main(request, i);
    if (!mayDelegate(request)) return leaf(request, i);
    if (resultsOf(request, "delegate").length === 0) return useReply("delegate", delegation(GRANDCHILD_QUESTION, "web-explorer"));
    const [consumed] = handoffsIn(request);
    const findings = consumed!.handoff.findings.map((f) => ({ claim: `${f.claim} (found by a delegated search)`, evidence: { toolResults: [], citations: [] }, confidence: "medium" }));
    return handoffReply(handoffInput("[general] The delegated search found the charge.", findings));
  };
}

/** A leaf searches once, then hands off a finding resting on that search. */
const searchThenHandOff: ScriptPolicy = (request) => {
  if (turnsTaken(request) === 0) return useReply("search_corpus", { query: "ADIV ongoing charge" });
  const [search] = resultsOf(request, "search_corpus");
  return handoffReply(
    handoffInput("[web-explorer] Found the ongoing charge.", [
      { claim: "The factsheet states ADIV's ongoing charge.", evidence: { toolResults: [search!.id], citations: citationsIn(search!.output).slice(0, 1) }, confidence: "medium" },
    ]),
  );
};

/** The delegation tree's admissions: the Checker, admitted by the host on Main's answer, is not in it. */
const admissions = (events: readonly RecordedEvent[]) => ofType(events, "executor_admitted").filter((e) => e.data.role !== "checker");

forEachEngine("delegation below depth 1", (ctx) => {
  /** A run submitted with these caps and hosted as `ariadne run` hosts it (runtimeFactory), on a scripted model. */
  async function hosted(maxDepth: number, model: ScriptedModel) {
    const { runId, mainExecutorId } = await submitRun(ctx.store, { question: QUESTION, options: { mode: "offline", caps: resolveCaps({ delegation: { maxDepth } }) } });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const buildRuntime = runtimeFactory({}, { offlineModel: () => model });
    const run = hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!);
    return { runId, mainExecutorId, run };
  }

  test("at maxDepth 2 a Child delegates to a grandchild in a fresh context; the handoffs come back up, the budget counts all three, the run verifies", async () => {
    const model = new ScriptedModel({ name: "tree", policy: treePolicy(searchThenHandOff) });
    const { runId, mainExecutorId, run } = await hosted(2, model);
    const result = await within(30_000, run.done);
    assert.equal(result.kind, "finished", JSON.stringify(result));
    const outcome = (result as { outcome: Parameters<typeof answerOf>[0] }).outcome;

    const events = await ctx.store.readRun(runId);
    const [, child, grandchild] = admissions(events);
    assert.equal(admissions(events).length, 3);
    assert.deepEqual([child!.data.parentExecutorId, child!.data.depth], [mainExecutorId, 1]);
    assert.ok(child!.data.grantedTools.includes("delegate"), `the Child holds ${child!.data.grantedTools.join(", ")}`);
    const childId = child!.metadata.executorId;
    const grandchildId = grandchild!.metadata.executorId;
    assert.deepEqual([grandchild!.data.parentExecutorId, grandchild!.data.depth], [childId, 2]);
    assert.ok(!grandchild!.data.grantedTools.includes("delegate"), "nothing may delegate at the deepest level");

    // The grandchild starts from its task alone: nothing of Main's or the Child's conversation.
    const [first] = model.requests.filter((r) => !isMain(r) && !mayDelegate(r));
    assert.equal(first!.messages.length, 1);
    assert.match(firstMessageText(first!), new RegExp(`^Question: ${GRANDCHILD_QUESTION}`));
    assert.ok(!textsOf(first!).some((t) => t.includes(QUESTION) || t.includes(CHILD_TASK.question)));

    // Up the tree: the grandchild's handoff is consumed by the Child, whose handoff Main cites.
    const childStream = await streamOf(ctx.store, childId);
    const [consumed] = ofType(childStream, "handoff_consumed");
    assert.equal(consumed!.data.childExecutorId, grandchildId);
    const [committed] = ofType(childStream, "handoff_committed");
    assert.equal(committed!.data.forced, false);
    const answer = answerOf(outcome);
    assert.equal((outcome as { partial?: boolean }).partial, undefined);
    assert.deepEqual(answer.sections[0]!.claims.map((c) => c.citations), [[{ executor: childId, finding: 0 }]]);

    // One budget for the whole tree: the ledger counts the grandchild's usage as the log settles it.
    const budget = (await readRunBudget(ctx.db.database, runId))!;
    const settledBy = (id: string) => ofType(events, "budget_settled").filter((e) => e.metadata.executorId === id).reduce((n, e) => n + (e.data.actual.tokens ?? 0), 0);
    assert.ok(settledBy(grandchildId) > 0);
    assert.equal(budget.executorSpent[grandchildId], settledBy(grandchildId));
    const checkers = ofType(events, "executor_admitted").filter((e) => e.data.role === "checker").map((e) => e.metadata.executorId);
    assert.equal(budget.totals.spentTokens, [mainExecutorId, childId, grandchildId, ...checkers].reduce((n, id) => n + settledBy(id), 0));

    const verified = await verifyRun(ctx.db.database, runId);
    assert.deepEqual(verified.problems, []);
    assert.ok(verified.ok && verified.sealed, "intact and sealed");
  });

  test("a cancel of the run reaches the grandchild: every executor of the tree ends cancelled", async () => {
    const working = gate();
    const stalledLeaf: ScriptPolicy = () => {
      working.open();
      return new Promise<never>(() => {});
    };
    const { runId, mainExecutorId, run } = await hosted(2, new ScriptedModel({ name: "tree", policy: treePolicy(stalledLeaf) }));
    await within(30_000, working.opened);
    await cancelRun({ database: ctx.db.database, store: ctx.store })({ runId, reason: "operator stop", by: "operator" });
    const result = await within(30_000, run.done);
    assert.equal(result.kind === "finished" && result.outcome.kind, "cancelled", JSON.stringify(result));

    const events = await ctx.store.readRun(runId);
    const [, child, grandchild] = admissions(events);
    assert.equal(grandchild!.data.depth, 2);
    for (const id of [mainExecutorId, child!.metadata.executorId, grandchild!.metadata.executorId]) {
      await eventually(async () => (await streamOf(ctx.store, id)).at(-1)!.type === "cancelled");
    }
    const [cancelled] = ofType(await streamOf(ctx.store, child!.metadata.executorId), "cancelled");
    assert.deepEqual(
      cancelled!.data.inFlight?.filter((f) => f.kind === "child").map((f) => (f as { childExecutorId: string }).childExecutorId),
      [grandchild!.metadata.executorId],
      "the Child names the grandchild it cancelled",
    );
  });

  test("at maxDepth 1 a Child still does not get delegate: it is refused at admission and not offered", async () => {
    const model = new ScriptedModel({ name: "tree", policy: treePolicy(searchThenHandOff) });
    const { runId, run } = await hosted(1, model);
    const result = await within(30_000, run.done);
    assert.equal(result.kind === "finished" && result.outcome.kind, "answer");
    const events = await ctx.store.readRun(runId);
    const [, child] = admissions(events);
    assert.equal(admissions(events).length, 2, "nothing was admitted below the Child");
    assert.ok(!child!.data.grantedTools.includes("delegate"));
    assert.deepEqual(child!.data.refusedTools, [{ name: "delegate", reason: "an executor at depth 1 may not delegate (maxDepth 1)" }]);
    assert.ok(model.requests.filter((r) => !isMain(r)).every((r) => !mayDelegate(r)));
  });
});
