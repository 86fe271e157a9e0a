import { partialHandoff } from "../../handoff/index.ts";
import type { Outcome } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";

/** How a Child's run ended, as its parent learns it; `error` when it could not even be rebuilt. */
export interface ChildResult {
  childExecutorId: string;
  toolUseId: string;
  /** The parent's delegate intent: what a result without an event of its own points at. */
  intentEventId: string;
  outcome: Outcome | null;
  error?: unknown;
}

/**
 * A Child's result reaches its parent as one fact, foreground or background:
 * its handoff, or (cancelled, failed, not rebuildable) a failed delegation
 * carrying a partial handoff that says why. Consumed handoffs stay valid.
 */
export function decideChildOutcome(r: ChildResult): Draft {
  const { childExecutorId, toolUseId } = r;
  if (r.outcome?.kind === "handoff") {
    return { type: "handoff_consumed", data: { childExecutorId, toolUseId, handoffEventId: r.outcome.eventId, handoff: r.outcome.handoff, handoffHash: r.outcome.hash }, causationId: r.outcome.eventId };
  }
  const ended =
    r.outcome === null
      ? { outcome: "failed" as const, reason: `could not continue: ${(r.error as Error)?.message ?? String(r.error)}`, eventId: r.intentEventId }
      : r.outcome.kind === "answer" || r.outcome.kind === "check"
        ? { outcome: "failed" as const, reason: "returned no handoff", eventId: r.intentEventId }
        : { outcome: r.outcome.kind, reason: r.outcome.reason, eventId: r.outcome.eventId };
  const handoff = partialHandoff(null, `Child ${childExecutorId} ${ended.outcome}: ${ended.reason}`);
  return {
    type: "handoff_consumed",
    data: { childExecutorId, toolUseId, handoffEventId: ended.eventId, handoff, childEnded: { outcome: ended.outcome, reason: ended.reason } },
    causationId: ended.eventId,
  };
}
