import { type ActorScope, type SnapshotFrom, assign, createActor, initialTransition, setup } from "xstate";
import type { RecordedEvent } from "../events/index.ts";
import { type ExecutorState, admittedState, evolve, isBackgroundDelegation } from "./executorState.ts";
import { DELEGATE_TOOL } from "../tools/index.ts";

/**
 * The one executor machine, for Main and every Child. Its only inputs are
 * recorded events, so an actor's state is always a fold of its stream: effects
 * happen outside (see runner.ts), are recorded, and only then arrive here. The same
 * fold serves live runs, rebuilds, transcripts and projections (foldExecutor).
 *
 * admitted -> awaitingModel -> runningTools -> (waitingForChildren) -> awaitingModel ...
 *          -> handingOff -> settled | cancelled | failed
 */
export const executorMachine = setup({
  types: {
    context: {} as { state: ExecutorState | null },
    events: {} as RecordedEvent,
  },
  actions: {
    admit: assign({ state: ({ event }) => admittedState(event as RecordedEvent<"executor_admitted">) }),
    fold: assign({ state: ({ context, event }) => evolve(context.state!, event) }),
    // Never executed: foldEvent sees it among the transition's actions and refuses the event.
    refuse: () => {},
  },
  guards: {
    onlyChildrenOpen: ({ context }) => {
      const open = context.state!.calls.filter((c) => c.phase !== "resolved");
      return open.length > 0 && open.every((c) => c.name === DELEGATE_TOOL && c.phase === "called" && !isBackgroundDelegation(c));
    },
    callsOpen: ({ context }) => context.state!.calls.length > 0,
  },
}).createMachine({
  id: "executor",
  context: { state: null },
  initial: "admitted",
  on: {
    // Facts that may arrive in any live state and do not move the conversation.
    budget_reserved: { actions: "fold" },
    budget_settled: { actions: "fold" },
    budget_refused: { actions: "fold" },
    reminder_raised: { actions: "fold" },
    reminder_delivered: { actions: "fold" },
    review_requested: { actions: "fold" },
    review_delivered: { actions: "fold" },
    recovered: { actions: "fold" },
    // The inbox: facts other writers append; the runner acts on them at its next step.
    cancel_requested: { actions: "fold" },
    cancelled: { target: ".cancelled", actions: "fold" },
    failed: { target: ".failed", actions: "fold" },
    "*": { actions: "refuse" },
  },
  states: {
    admitted: {
      on: {
        executor_admitted: { target: "awaitingModel", actions: "admit" },
        "*": { actions: "refuse" },
      },
    },
    awaitingModel: {
      on: {
        turn: { target: "routing", actions: "fold" },
        turn_failed: { actions: "fold" },
        // A background Child's handoff, delivered with the next request.
        handoff_consumed: { actions: "fold" },
        // Forced handoff after repairs or limits ran out, without another model call.
        handoff_committed: { target: "handingOff", actions: "fold" },
        settled: { target: "settled", actions: "fold" },
      },
    },
    routing: {
      always: [
        { guard: "onlyChildrenOpen", target: "waitingForChildren" },
        { guard: "callsOpen", target: "runningTools" },
        { target: "awaitingModel" },
      ],
    },
    runningTools: {
      on: {
        tool_called: { target: "routing", actions: "fold" },
        tool_completed: { target: "routing", actions: "fold" },
        tool_failed: { target: "routing", actions: "fold" },
        effect_unknown: { target: "routing", actions: "fold" },
        handoff_consumed: { target: "routing", actions: "fold" },
        handoff_committed: { target: "handingOff", actions: "fold" },
        settled: { target: "settled", actions: "fold" },
      },
    },
    waitingForChildren: {
      on: {
        handoff_consumed: { target: "routing", actions: "fold" },
        effect_unknown: { target: "routing", actions: "fold" },
        tool_failed: { target: "routing", actions: "fold" },
      },
    },
    handingOff: {
      on: { settled: { target: "settled", actions: "fold" } },
    },
    settled: { type: "final" },
    cancelled: { type: "final" },
    failed: { type: "final" },
  },
});

export type ExecutorStatus = "admitted" | "awaitingModel" | "runningTools" | "waitingForChildren" | "handingOff" | "settled" | "cancelled" | "failed";

/** A running fold: feed it recorded events, read its status and state. */
export interface ExecutorFold {
  apply(event: RecordedEvent): void;
  readonly status: ExecutorStatus;
  readonly state: ExecutorState;
  readonly done: boolean;
}

export type ExecutorSnapshot = SnapshotFrom<typeof executorMachine>;

/**
 * What XState's `transition()` builds on every call (an inert actor and system,
 * to collect the actions without running them), built once: the machine invokes
 * and spawns nothing and schedules no delayed events, so one scope serves every
 * fold, and folding is synchronous, so the collected actions cannot interleave.
 */
const executed: { type: string }[] = [];
const inertActor = createActor(executorMachine);
const inertScope = {
  self: inertActor,
  id: "",
  sessionId: "",
  logger: () => {},
  defer: () => {},
  system: inertActor.system,
  stopChild: () => {},
  emit: () => {},
  actionExecutor: (action: { type: string }) => void executed.push(action),
} as unknown as ActorScope<ExecutorSnapshot, RecordedEvent>;

/** The snapshot of an executor before its first event. */
export const initialExecutorSnapshot = (): ExecutorSnapshot => initialTransition(executorMachine)[0];

/**
 * The one fold, pure: the next snapshot of an executor after a recorded event,
 * by the machine's own transition (XState's `transition()`, nothing executed).
 * An event the machine does not allow in the current state throws, naming it;
 * so does an event after a final state.
 */
export function foldEvent(snapshot: ExecutorSnapshot, event: RecordedEvent): ExecutorSnapshot {
  const executorId = snapshot.context.state?.executorId ?? "an unadmitted executor";
  if (snapshot.status === "done") {
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId}: it is already ${String(snapshot.value)}`);
  }
  executed.length = 0;
  const next = executorMachine.transition(snapshot, event, inertScope);
  if (executed.some((a) => a.type === "refuse")) {
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId} in its current state (${String(snapshot.value)})`);
  }
  // A fold that threw (e.g. an outcome for a tool use that was never made) leaves the snapshot in error.
  if (next.status === "error") {
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId}: ${(next.error as Error)?.message ?? String(next.error)}`);
  }
  return next;
}

/** The snapshot of an executor after its events, from the start. */
export const foldEvents = (events: readonly RecordedEvent[]): ExecutorSnapshot => events.reduce(foldEvent, initialExecutorSnapshot());

/**
 * A running fold over `foldEvent`: feed it recorded events, read its status
 * and state. Live runners, rebuilds, transcripts and projections use this same fold.
 */
export function foldExecutor(events: readonly RecordedEvent[] = []): ExecutorFold {
  let snapshot = foldEvents(events);
  return {
    apply(event) {
      snapshot = foldEvent(snapshot, event);
    },
    get status() {
      return snapshot.value as ExecutorStatus;
    },
    get state() {
      const s = snapshot.context.state;
      if (!s) throw new Error("executor not admitted yet");
      return s;
    },
    get done() {
      return snapshot.status === "done";
    },
  };
}
