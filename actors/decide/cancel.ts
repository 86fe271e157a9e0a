import type { EventData } from "../../events/index.ts";
import type { ExecutorState } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";

export type InFlight = NonNullable<EventData<"cancelled">["inFlight"]>[number];

/**
 * A cancel request, once what was in flight has stopped: the executor ends
 * cancelled, naming what was in flight (aborted tools and model call, the
 * Children it cancelled). Handoffs it already consumed stay in its stream.
 */
export function decideCancel(s: ExecutorState, inFlight: readonly InFlight[]): Draft {
  const request = s.cancelRequest;
  if (!request) throw new Error(`${s.executorId} has no cancel request to act on`);
  const children = Object.entries(s.children)
    .filter(([, c]) => !c.consumed)
    .map(([childExecutorId, c]): InFlight => ({ kind: "child", childExecutorId, toolUseId: c.toolUseId }));
  const known = new Set(children.map((c) => c.childExecutorId));
  const rest = inFlight.filter((f) => f.kind !== "child" || !known.has(f.childExecutorId));
  return { type: "cancelled", data: { reason: request.reason, by: request.by, inFlight: [...rest, ...children] } };
}

/** A cancel request passed down to a Child (or a whole run's Main). */
export function cancelRequest(reason: string, by: EventData<"cancelled">["by"], scope: "run" | "executor"): Draft {
  return { type: "cancel_requested", data: { reason, by, scope } };
}

/** The executors a stopping executor takes down with it: its Children whose results it has not consumed, and its Reviewers. */
export function liveChildrenOf(s: ExecutorState): string[] {
  return [...Object.entries(s.children).filter(([, c]) => !c.consumed).map(([id]) => id), ...Object.values(s.reviews).map((r) => r.reviewerExecutorId)];
}
