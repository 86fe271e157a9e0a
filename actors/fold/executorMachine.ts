import type { EventType, RecordedEvent } from "../../events/index.ts";
import { DELEGATE_TOOL } from "../../tools/index.ts";
import { type ExecutorState, admittedState, evolve, isBackgroundDelegation } from "./executorState.ts";

/**
 * The one executor machine, for Main and every Child, as plain data: its only
 * inputs are recorded events, so an executor is always a fold of its stream.
 * Effects happen outside (actors/runner.ts), are recorded, and only then
 * arrive here. `foldEvent` is the one way in: the live actor (executorActor.ts,
 * XState's `fromTransition` over it), `foldExecutor` (rebuilds, transcripts,
 * decisions' tests), the runner's held outcomes (executorLog.ts) and the
 * projections (projections/executorStep.ts) all step through it.
 *
 * admitted -> awaitingModel -> runningTools -> (waitingForChildren) -> awaitingModel ...
 *          -> handingOff -> settled | cancelled | failed
 */
export type ExecutorStatus = "admitted" | "awaitingModel" | "runningTools" | "waitingForChildren" | "handingOff" | "settled" | "cancelled" | "failed";

/** What an event does in a status: fold it and stay, fold it and route by the open calls, or fold it and move to a status. */
type Move = "stay" | "route" | ExecutorStatus;

/** Facts that may arrive in any live status and do not move the conversation; a cancel or failure ends it from any. */
const ANY_LIVE: Partial<Record<EventType, Move>> = {
  budget_reserved: "stay",
  budget_settled: "stay",
  budget_refused: "stay",
  reminder_raised: "stay",
  reminder_delivered: "stay",
  review_requested: "stay",
  review_delivered: "stay",
  recovered: "stay",
  // The inbox: facts other writers append; the runner acts on them at its next step.
  cancel_requested: "stay",
  cancelled: "cancelled",
  failed: "failed",
};

/** The transitions of each status (over ANY_LIVE in the live ones); an event neither names is refused. */
export const EXECUTOR_MACHINE: Readonly<Record<ExecutorStatus, Partial<Record<EventType, Move>>>> = {
  admitted: { executor_admitted: "awaitingModel" },
  awaitingModel: {
    turn: "route",
    turn_failed: "stay",
    // A background Child's handoff, delivered with the next request.
    handoff_consumed: "stay",
    // Forced handoff after repairs or limits ran out, without another model call.
    handoff_committed: "handingOff",
    check_submitted: "handingOff",
    settled: "settled",
  },
  runningTools: {
    tool_called: "route",
    tool_completed: "route",
    tool_failed: "route",
    effect_unknown: "route",
    handoff_consumed: "route",
    handoff_committed: "handingOff",
    check_submitted: "handingOff",
    settled: "settled",
  },
  waitingForChildren: { handoff_consumed: "route", effect_unknown: "route", tool_failed: "route" },
  handingOff: { settled: "settled" },
  settled: {},
  cancelled: {},
  failed: {},
};

const FINAL: ReadonlySet<ExecutorStatus> = new Set(["settled", "cancelled", "failed"]);

/** Every event type the machine names: projections pass others by (the catalogue grows while readers keep working). */
export const EXECUTOR_EVENT_TYPES: ReadonlySet<string> = new Set([...Object.values(EXECUTOR_MACHINE).flatMap((t) => Object.keys(t)), ...Object.keys(ANY_LIVE)]);

/** An executor as folded: where the machine is, and everything it knows (null before its admission). */
export interface Folded {
  readonly status: ExecutorStatus;
  readonly state: ExecutorState | null;
}

export const UNADMITTED: Folded = Object.freeze({ status: "admitted", state: null });

export const isFinal = (f: Folded): boolean => FINAL.has(f.status);

/** Where the open calls leave a turn: waiting only on foreground Children, running tools, or back to the model. */
function route(s: ExecutorState): ExecutorStatus {
  const open = s.calls.filter((c) => c.phase !== "resolved");
  if (open.length > 0 && open.every((c) => c.name === DELEGATE_TOOL && c.phase === "called" && !isBackgroundDelegation(c))) return "waitingForChildren";
  return s.calls.length > 0 ? "runningTools" : "awaitingModel";
}

/**
 * The one fold, pure: an executor after one more recorded event. An event the
 * machine does not allow in the current status throws, naming it; so does an
 * event after a final status, and one the state cannot take (an outcome for a
 * tool use that was never made).
 */
export function foldEvent(f: Folded, event: RecordedEvent): Folded {
  const who = f.state?.executorId ?? "an unadmitted executor";
  if (FINAL.has(f.status)) throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${who}: it is already ${f.status}`);
  const type = event.type as EventType;
  const move = EXECUTOR_MACHINE[f.status][type] ?? (f.status === "admitted" ? undefined : ANY_LIVE[type]);
  if (move === undefined) throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${who} in its current state (${f.status})`);
  let state: ExecutorState;
  try {
    state = event.type === "executor_admitted" ? admittedState(event as RecordedEvent<"executor_admitted">) : evolve(f.state!, event);
  } catch (e) {
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${who}: ${(e as Error)?.message ?? String(e)}`);
  }
  return { status: move === "stay" ? f.status : move === "route" ? route(state) : move, state };
}

/** An executor after its events, from `from` (default: before its admission). */
export function foldEvents(events: readonly RecordedEvent[], from: Folded = UNADMITTED): Folded {
  let f = from;
  for (const event of events) f = foldEvent(f, event);
  return f;
}

/** A running fold: feed it recorded events, read its status and state. */
export interface ExecutorFold {
  apply(event: RecordedEvent): void;
  readonly status: ExecutorStatus;
  readonly state: ExecutorState;
  readonly done: boolean;
}

/** The state of a folded executor; it throws before the admission. */
export function admitted(f: Folded): ExecutorState {
  if (!f.state) throw new Error("executor not admitted yet");
  return f.state;
}

/** A running fold over `foldEvent`, for rebuilds, transcripts and tests. */
export function foldExecutor(events: readonly RecordedEvent[] = []): ExecutorFold {
  let f = foldEvents(events);
  return {
    apply(event) {
      f = foldEvent(f, event);
    },
    get status() {
      return f.status;
    },
    get state() {
      return admitted(f);
    },
    get done() {
      return isFinal(f);
    },
  };
}
