import { test } from "node:test";
import assert from "node:assert/strict";
import type { RuntimeOptions } from "../../actors/index.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { delegatingMain, delegation, gate, handoffInput, handoffReply, ofType, runtimeWith, streamOf, textsOf, useReply, within } from "./fixtures.ts";

const REVIEW_MARK = "REVIEWER-ONLY-TEXT-7731";
const DEMO_PROFILES = new URL("./demoProfiles/", import.meta.url).pathname;

/** A Child (or the Reviewer) that searches once and hands off one finding resting on that search. */
function searcher(summary: string): ScriptPolicy {
  return (request) => {
    if (turnsTaken(request) === 0) return useReply("search_corpus", { query: "ADIV ongoing charge" });
    const [search] = resultsOf(request, "search_corpus");
    return handoffReply(
      handoffInput(summary, [{ claim: `${summary}: claim`, evidence: { toolResults: [search.id], citations: citationsIn(search.output).slice(0, 1) }, confidence: "medium" }]),
    );
  };
}

/**
 * Main delegates once; on its next turn (the review has been requested by
 * then) it waits until the Reviewer has settled, looks something up itself,
 * then answers from the handoffs.
 */
async function reviewedRun(ctx: { store: RuntimeOptions["store"] }, mode: "shadow" | "advisory") {
  const reviewed = gate();
  const answer = delegatingMain([delegation("What is ADIV's ongoing charge?")]);
  const mainPolicy: ScriptPolicy = async (request, call) => {
    if (call === 0) return answer(request, call);
    if (call === 1) {
      await reviewed.opened;
      return useReply("search_corpus", { query: "ADIV benchmark" });
    }
    return answer(request, call);
  };
  const main = new ScriptedModel({ name: "main", policy: mainPolicy });
  const reviewer = new ScriptedModel({ name: "reviewer", policy: searcher(`[reviewer] ${REVIEW_MARK}`) });
  const child = new ScriptedModel({ name: "child", policy: searcher("[web-explorer] Fee found") });
  let reviewerId = "";
  const onEvent = (e: RecordedEvent) => {
    if (e.type === "review_requested") reviewerId = e.data.reviewerExecutorId;
    if (e.type === "settled" && e.metadata.executorId === reviewerId) reviewed.open();
  };
  // The reviewer mechanism over the demo corpus: a reviewer profile that asks for the demo tools (the shipped one asks for document_read and web_fetch).
  const runtime = runtimeWith(ctx.store, { main, child, reviewer }, { reviewer: mode, onEvent, profilesDir: DEMO_PROFILES });
  const run = await runtime.startRun("What does ADIV cost?");
  const outcome = await within(20_000, run.result);
  return { run, outcome, main, reviewer, reviewerId, mainStream: await streamOf(ctx.store, run.mainExecutorId), runtime };
}

forEachEngine("Reviewer modes", (ctx) => {
  test("shadow: the Reviewer works on the run's budget and nothing of it reaches Main", async () => {
    const { outcome, main, reviewer, reviewerId, mainStream, runtime } = await reviewedRun(ctx, "shadow");
    assert.equal(outcome.kind, "answer");
    const [requested] = ofType(mainStream, "review_requested");
    assert.equal(requested.data.mode, "shadow");
    const reviewerStream = await streamOf(ctx.store, reviewerId);
    const [admitted] = ofType(reviewerStream, "executor_admitted");
    assert.deepEqual([admitted.data.role, admitted.data.profile?.id, admitted.data.parentExecutorId], ["reviewer", "reviewer", requested.metadata.executorId]);
    assert.deepEqual(admitted.data.grantedTools, ["search_corpus", "read_document", "quote_passage"]);
    assert.equal(ofType(reviewerStream, "turn").length, 2);
    assert.equal(reviewer.requests.length, 2);
    // The Reviewer saw Main's consumed findings; Main never saw the Reviewer's output.
    assert.match(reviewer.requests[0].messages[0].content as string, /Fee found: claim/);
    assert.equal(main.requests.length, 3);
    for (const request of main.requests) assert.ok(!textsOf(request).some((t) => t.includes(REVIEW_MARK)));
    assert.deepEqual(ofType(mainStream, "review_delivered").map((e) => e.data), [{ reviewId: requested.data.reviewId, delivered: false, turn: null }]);
    // One review for the same findings: the default policy does not ask again.
    assert.equal(ofType(mainStream, "review_requested").length, 1);
    assert.ok((await runtime.transcript(requested.metadata.executorId)).turns.every((t) => t.digestMatches));
  });

  test("advisory: the Reviewer's findings reach Main once, marked as advice, with the first turn after the review was requested (Main waits for it)", async () => {
    const { outcome, main, mainStream, runtime } = await reviewedRun(ctx, "advisory");
    assert.equal(outcome.kind, "answer");
    const [requested] = ofType(mainStream, "review_requested");
    const delivered = ofType(mainStream, "review_delivered");
    assert.equal(delivered.length, 1);
    assert.deepEqual([delivered[0].data.reviewId, delivered[0].data.delivered, delivered[0].data.turn], [requested.data.reviewId, true, 2]);
    const turn2 = ofType(mainStream, "turn").find((e) => e.data.turn === 2)!;
    assert.equal(delivered[0].streamVersion + 1, turn2.streamVersion);
    // Not before the review was requested; in the second request exactly once, as a block of its own marked as advice.
    assert.ok(!textsOf(main.requests[0]).some((t) => t.includes(REVIEW_MARK)));
    const advice = textsOf(main.requests[1]).filter((t) => t.includes(REVIEW_MARK));
    assert.equal(advice.length, 1);
    assert.match(advice[0], /^\[Ariadne runtime: advice from an independent reviewer, not from the user\./);
    assert.ok((await runtime.transcript(requested.metadata.executorId)).turns.every((t) => t.digestMatches));
  });
});
