import type { Answer } from "../actors/index.ts";
import type { EventStore } from "../events/index.ts";
import type { HostResult, RunLease } from "../runs/index.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";

/**
 * Prints how a hosted run ended (run, resume): the answer, or why there is none,
 * as text or one JSON object. Returns the exit code: 0 answered, 130
 * interrupted, 1 otherwise.
 */
export async function renderRunResult(
  result: HostResult,
  ctx: { store: EventStore; location: string; lease: RunLease; json: boolean; out: (line: string) => void },
): Promise<number> {
  const { runId, mainExecutorId } = ctx.lease;
  const events = await ctx.store.readRun(runId);
  const handoffs = handoffsOf(events);
  const outcome = result.kind === "finished" ? result.outcome : null;
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId,
        mainExecutorId,
        store: ctx.location,
        scripted: ctx.lease.options.mode === "offline",
        outcome: outcome?.kind ?? result.kind,
        answer: outcome?.kind === "answer" ? outcome.answer : null,
        reason: outcome && "reason" in outcome ? outcome.reason : "reason" in result ? result.reason : null,
        handoffs: Object.fromEntries(handoffs),
        events: events.length,
      }),
    );
  } else if (outcome?.kind === "answer") {
    ctx.out("");
    for (const line of renderAnswer(outcome.answer as Answer, handoffs)) ctx.out(line);
    ctx.out(`run ${runId} · ${events.length} events · transcripts by executor id in the log`);
  } else if (outcome) {
    ctx.out(`run ${runId} ended without an answer: ${outcome.kind}${"reason" in outcome ? `: ${outcome.reason}` : ""}`);
  } else if (result.kind === "fenced" || result.kind === "released") {
    ctx.out(`run ${runId} stopped here (${result.kind}): ${result.reason}`);
  }
  if (result.kind === "interrupted") return 130;
  return outcome?.kind === "answer" ? 0 : 1;
}
