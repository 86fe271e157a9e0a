import type { RecordedEvent } from "../events/index.ts";
import type { Model, ModelResponse } from "../models/types.ts";
import { storeServerSearches } from "../tools/index.ts";
import { type RequestContext, buildRequest, canonicalRequest, digestOf, estimateInputTokens } from "./request/buildRequest.ts";
import { checkCalls } from "./checkCalls.ts";
import { decide, previewTurn, refuseReusedToolUseIds, toolUsesOf, withRaisedReminders } from "./decide/index.ts";
import { ADVICE_WAIT_MS } from "./decide/reviewPolicy.ts";
import type { RunnerPort } from "./runnerPort.ts";

/**
 * One model turn: a review started if one is due; the request previewed with
 * its deliveries (reminders, finished reviews); governance asked before the
 * call (a refusal stops the executor with what it has) and after it; the
 * turn's tool uses checked. `decide` makes the one append of it all.
 */
export async function performTurn(runner: RunnerPort, ctx: RequestContext, model: Model): Promise<void> {
  const { mode, policy } = runner.services.review;
  const [requested] = await runner.recordFact({ kind: "beforeTurn", review: { mode, policy, now: runner.services.clock.now(), newId: runner.services.newId } });
  if (requested) await runner.services.reviewRequested(runner.state, requested as RecordedEvent<"review_requested">);
  await awaitAdvice(runner);
  const s = runner.state;
  const reviews = Object.fromEntries(
    await Promise.all(
      Object.entries(s.reviews)
        .filter(([, r]) => !r.delivered)
        .map(async ([id, r]) => [id, await runner.services.childFinished(r.reviewerExecutorId).catch(() => null)] as const),
    ),
  );
  let turn = previewTurn(s, reviews);
  let request = buildRequest(turn.preview, ctx);
  let canonical = canonicalRequest(request);
  // A request offering web_search to a model that searches on its own servers may search: the run's search budget applies.
  const maxSearches = model.serverSearchesPerCall && request.tools.some((t) => t.name === "web_search") ? model.serverSearchesPerCall : undefined;
  const verdict = await runner.services.governance.beforeModelCall(s, { model: request.model, inputTokens: estimateInputTokens(canonical), maxTokens: request.maxTokens, ...(maxSearches && { maxSearches }) });
  if (!verdict.ok) return runner.decided({ kind: "modelRefused", limit: verdict.limit, reason: verdict.reason, events: verdict.events });
  const raised = withRaisedReminders(turn, verdict.events);
  if (raised !== turn) {
    turn = raised;
    request = buildRequest(turn.preview, ctx);
    canonical = canonicalRequest(request);
  }
  // The digest, not the canonical text, is what waits out the call: a live executor keeps little.
  const digest = digestOf(canonical);
  const started = performance.now();
  let response: ModelResponse;
  runner.inFlight.set("model", { kind: "model" });
  try {
    response = await runner.abortable(model.complete(request, { signal: runner.signal, deadline: verdict.deadline, ...(verdict.searches !== undefined && { maxSearches: verdict.searches }) }));
  } catch (error) {
    const settlement = await runner.services.governance.afterModelCall(s, verdict.reservation, null);
    await runner.recordFact({ kind: "modelFailed", governed: verdict.events, settlement, error, cancelled: runner.cancelling });
    return;
  } finally {
    runner.inFlight.delete("model");
  }
  const reused = refuseReusedToolUseIds(s, response.content);
  if (reused) {
    // Not recorded as a turn (two calls would share an id); its tokens were spent all the same.
    await runner.record([...verdict.events, reused, ...(await runner.services.governance.afterModelCall(s, verdict.reservation, response.usage))]);
    return;
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  // Searches Anthropic ran inside the call: their result lists stored as sources, recorded with the turn (one append).
  const searches = await storeServerSearches(response.content, runner.services.blobs, runner.services.clock.now());
  const decisions = decide(s, { kind: "callsChecked", turn: s.turn + 1, calls: await checkCalls(runner.services, runner.role, s, toolUsesOf(response)) }, runner.role);
  const settlement = await runner.services.governance.afterModelCall(s, verdict.reservation, response.usage);
  const { deliveries } = turn;
  await runner.recordFact({ kind: "modelAnswered", governed: verdict.events, deliveries, request, digest, response, provider: model.provider, latencyMs, decisions, settlement, searches });
}

/**
 * Advisory reviews requested before this call are waited for (at most
 * ADVICE_WAIT_MS, or until a cancel), so their advice reaches this request
 * rather than a Reviewer being cancelled when Main answers first.
 */
async function awaitAdvice(runner: RunnerPort): Promise<void> {
  const pending = Object.values(runner.state.reviews).filter((r) => r.mode === "advisory" && !r.delivered);
  if (pending.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<null>((resolve) => (timer = setTimeout(resolve, ADVICE_WAIT_MS, null)));
  const reviewed = Promise.all(pending.map((r) => runner.services.childResult(r.reviewerExecutorId).catch(() => null)));
  try {
    await runner.during(runner.untilInterrupted(Promise.race([bound, reviewed])));
  } finally {
    clearTimeout(timer);
  }
}
