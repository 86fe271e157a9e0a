import { partialHandoff } from "../../handoff/index.ts";
import type { Outcome } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";
import { renderConsumed } from "../request/renderTexts.ts";

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
 * What the parent's model is shown of it is rendered here, once: a tool
 * result, or (`background`: its delegate call was answered long ago) a text block.
 */
export function decideChildOutcome(r: ChildResult, background: boolean): Draft {
  const { childExecutorId, toolUseId } = r;
  if (r.outcome?.kind === "handoff") {
    const { handoff, eventId, hash } = r.outcome;
    const rendered = renderConsumed({ childExecutorId, handoff }, background);
    return { type: "handoff_consumed", data: { childExecutorId, toolUseId, handoffEventId: eventId, handoff, handoffHash: hash, rendered }, causationId: eventId };
  }
  const ended =
    r.outcome === null
      ? { outcome: "failed" as const, reason: `could not continue: ${(r.error as Error)?.message ?? String(r.error)}`, eventId: r.intentEventId }
      : r.outcome.kind === "answer" || r.outcome.kind === "check"
        ? { outcome: "failed" as const, reason: "returned no handoff", eventId: r.intentEventId }
        : { outcome: r.outcome.kind, reason: r.outcome.reason, eventId: r.outcome.eventId };
  const handoff = partialHandoff(null, `Child ${childExecutorId} ${ended.outcome}: ${ended.reason}`);
  const childEnded = { outcome: ended.outcome, reason: ended.reason };
  return {
    type: "handoff_consumed",
    data: { childExecutorId, toolUseId, handoffEventId: ended.eventId, handoff, childEnded, rendered: renderConsumed({ childExecutorId, handoff, childEnded }, background) },
    causationId: ended.eventId,
  };
}
