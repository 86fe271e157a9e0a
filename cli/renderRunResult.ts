import type { EventStore, RecordedEvent } from "../events/index.ts";
import { runStreamId } from "../events/streamIds.ts";
import { projectRun } from "../projections/index.ts";
import type { HostResult, RunLease } from "../runs/index.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";
import { renderHandoff } from "./renderHandoff.ts";
import { renderUnknownEffects } from "./renderUnknownEffects.ts";
import { type HandoffView, runView } from "./runView.ts";
import { errorLine } from "./errorLine.ts";

/**
 * What the Children found still counts when Main could not finish: every handoff, whole. A single agent's
 * Main commits its own findings as a handoff (it has no Children): those are shown as Main's, apart.
 */
function renderHandoffsWhole(handoffs: HandoffView[], mainExecutorId: string, out: (line: string) => void): void {
  const own = handoffs.filter((h) => h.executorId === mainExecutorId);
  const children = handoffs.filter((h) => h.executorId !== mainExecutorId);
  if (own.length) out("What Main gathered itself (a single agent, no Children):");
  for (const h of own) for (const line of renderHandoff(h, "main")) out(line);
  if (children.length || !own.length) out(children.length ? `What the Children handed back (${children.length}):` : "No Child handed anything back.");
  for (const h of children) for (const line of renderHandoff(h)) out(line);
}

/** Exit codes of a hosted run (run, resume). */
export const EXIT = { answered: 0, failed: 1, partial: 3, interrupted: 130 } as const;

const WHERE_NEXT = (runId: string) => `ariadne show ${runId} for the executor tree and handoffs, ariadne transcript EXECUTOR_ID for one executor's transcript`;

/**
 * Prints how a hosted run ended (run, resume), read off the run projection: the
 * answer (a partial one marked so), or why there is none with what the Children
 * found, whole; the root hash it was sealed with. As text or one JSON object.
 * Exit code: 0 answered, 3 a partial answer (a limit stopped Main, no Child it delegated handed anything back, or no claim cites a finding), 130
 * interrupted, 1 otherwise.
 */
export async function renderRunResult(
  result: HostResult,
  ctx: { store: EventStore; location: string; lease: RunLease; json: boolean; out: (line: string) => void },
): Promise<number> {
  const { runId, mainExecutorId } = ctx.lease;
  if (result.kind === "released" && result.diskFull) {
    // One line on stderr naming the full disk and the way on; nothing more is read from a store that cannot write.
    errorLine(`ariadne: ${result.reason}`);
    if (ctx.json) ctx.out(JSON.stringify({ runId, mainExecutorId, store: ctx.location, outcome: "released", state: "interrupted", reason: result.reason, diskFull: true }));
    return EXIT.failed;
  }
  const projected = await projectRun(ctx.store, runId);
  const view = runView(projected);
  const handoffs = handoffsOf(view);
  const outcome = result.kind === "finished" ? result.outcome : null;
  const rootHash = result.kind === "finished" ? result.rootHash : null;
  // Partial: a limit stopped Main, or its answer cites no finding (projections/runState.ts): exit 3, never 0.
  const partial = outcome?.kind === "answer" && (outcome.partial === true || projected.partial);
  // The host's check of the answer (runs/host/hostRun.ts), recorded after the seal in the run's stream.
  const checked = (await ctx.store.readStream(runStreamId(runId))).findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  const check = checked
    ? {
        verdict: checked.data.verdict,
        eventId: checked.eventId,
        flagged: checked.data.claims.filter((c) => c.verdict === "flagged").map((c) => c.claimId),
        advice: checked.data.advice.length,
        ...((checked.data.verdictReason ?? checked.data.checker?.reason) && { reason: checked.data.verdictReason ?? checked.data.checker?.reason }),
      }
    : null;
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId,
        mainExecutorId,
        store: ctx.location,
        scripted: ctx.lease.options.mode !== "model",
        outcome: outcome?.kind ?? result.kind,
        state: projected.status,
        partial,
        answer: view.answer,
        reason: outcome && "reason" in outcome ? outcome.reason : "reason" in result ? result.reason : null,
        // Whole: findings with evidence, measurement basis, artifacts, gaps, execution state, confidence.
        handoffs: Object.fromEntries(handoffs),
        events: projected.events,
        rootHash,
        // The checker's verdict (null when the run was not checked): the claims it flagged, the advice sentences it found.
        check,
        // Tool calls of unknown outcome, never run again: [{executorId, toolUseId, tool}], empty when none.
        unknownEffects: view.unknownEffects,
      }),
    );
  } else if (view.answer) {
    ctx.out("");
    if (partial) {
      ctx.out(
        outcome?.kind === "answer" && outcome.partial === true
          ? "PARTIAL ANSWER: a limit stopped Main before it finished, or no Child it delegated handed anything back; it is built from the handoffs it held."
          : "PARTIAL ANSWER: no claim of it cites a finding: nothing it says was observed by a Child.",
      );
    }
    for (const line of renderAnswer(view.answer, handoffs, mainExecutorId)) ctx.out(line);
    if (partial) renderHandoffsWhole(view.handoffs, mainExecutorId, ctx.out);
    for (const line of renderUnknownEffects(view)) ctx.out(line);
    ctx.out(`run ${runId} · ${projected.events} events · ${WHERE_NEXT(runId)}`);
  } else if (outcome) {
    ctx.out(`run ${runId} ended without an answer: ${outcome.kind}${"reason" in outcome ? `: ${outcome.reason}` : ""}`);
    renderHandoffsWhole(view.handoffs, mainExecutorId, ctx.out);
    for (const line of renderUnknownEffects(view)) ctx.out(line);
    ctx.out(WHERE_NEXT(runId));
  } else if (result.kind === "fenced" || result.kind === "released") {
    ctx.out(`run ${runId} stopped here (${result.kind}): ${result.reason}`);
    // Given back to the queue (the database went away, say): nothing failed, and it can be finished.
    if (result.kind === "released") ctx.out(`ariadne resume ${runId} finishes it here (a worker may also take it)`);
  }
  if (check && !ctx.json) {
    // The closing line says what the checker said: a partial answer or a claim without evidence is "unsupported", with why.
    const what = [check.flagged.length ? `claims ${check.flagged.join(", ")} flagged` : "", check.advice ? `${check.advice} advice sentences` : "", check.reason ?? ""].filter(Boolean).join(", ");
    ctx.out(`check: ${check.verdict}${what ? ` (${what})` : ""} · ariadne check ${runId} writes check-report.md`);
  }
  if (rootHash && !ctx.json) ctx.out(`root hash ${rootHash} · check later with: ariadne verify ${runId} --root ${rootHash}`);
  if (result.kind === "interrupted") return EXIT.interrupted;
  if (outcome?.kind !== "answer") return EXIT.failed;
  return partial ? EXIT.partial : EXIT.answered;
}

