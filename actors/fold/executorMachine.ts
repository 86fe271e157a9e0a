import { type ActorScope, type AnyStateNode, type SnapshotFrom, assign, createActor, initialTransition, setup } from "xstate";
import type { RecordedEvent } from "../../events/index.ts";
import { type ExecutorState, admittedState, evolve, isBackgroundDelegation } from "./executorState.ts";
import { DELEGATE_TOOL } from "../../tools/index.ts";

/**
 * The one executor machine, for Main and every Child. Its only inputs are
 * recorded events, so an actor's state is always a fold of its stream: effects
 * happen outside (see runner.ts), are recorded, and only then arrive here. The same
 * fold serves live runs, rebuilds, transcripts and projections (foldExecutor).
 *
 * admitted -> awaitingModel -> runningTools -> (waitingForChildren) -> awaitingModel ...
 *          -> handingOff -> settled | cancelled | failed
 */
/** The machine's context updates, by action name: the machine assigns them, and foldEvent's cached steps call them. */
const updates = {
  admit: (_state: ExecutorState | null, event: RecordedEvent) => admittedState(event as RecordedEvent<"executor_admitted">),
  fold: (state: ExecutorState | null, event: RecordedEvent) => evolve(state!, event),
};

/** The machine's guards, by name, as predicates on the folded state (the machine and foldEvent's cached steps share them). */
const predicates = {
  onlyChildrenOpen: (s: ExecutorState) => {
    const open = s.calls.filter((c) => c.phase !== "resolved");
    return open.length > 0 && open.every((c) => c.name === DELEGATE_TOOL && c.phase === "called" && !isBackgroundDelegation(c));
  },
  callsOpen: (s: ExecutorState) => s.calls.length > 0,
};

export const executorMachine = setup({
  types: {
    context: {} as { state: ExecutorState | null },
    events: {} as RecordedEvent,
  },
  actions: {
    admit: assign({ state: ({ context, event }) => updates.admit(context.state, event) }),
    fold: assign({ state: ({ context, event }) => updates.fold(context.state, event) }),
    // Never executed: foldEvent sees it among the transition's actions and refuses the event.
    refuse: () => {},
  },
  guards: {
    onlyChildrenOpen: ({ context }) => predicates.onlyChildrenOpen(context.state!),
    callsOpen: ({ context }) => predicates.callsOpen(context.state!),
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
        check_submitted: { target: "handingOff", actions: "fold" },
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
        check_submitted: { target: "handingOff", actions: "fold" },
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

/** Every fold starts from the same initial snapshot: transitions never change the snapshot they are given (frozen, so one that did would throw). */
let initial: ExecutorSnapshot | undefined;
const frozen = (s: ExecutorSnapshot): ExecutorSnapshot => (Object.freeze(s.context), Object.freeze(s));

/**
 * The one fold, pure: the next snapshot of an executor after a recorded event,
 * by the machine's own transition (XState's `transition()`, nothing executed).
 * An event the machine does not allow in the current state throws, naming it;
 * so does an event after a final state.
 *
 * XState resolves every transition from scratch (exit and entry sets, several
 * snapshot copies), which cost more than the fold itself. So the machine's
 * answer is cached as a step (see stepOf): which transition XState selects
 * for this event type in this state, its actions, and the snapshot XState
 * settled in the first time the same transition and guard outcome occurred;
 * later events of the same kind apply the same updates and guards to the new
 * state and take that snapshot with the new context. What the cache cannot
 * express (see cacheable) always goes through XState.
 */
export function foldEvent(snapshot: ExecutorSnapshot, event: RecordedEvent): ExecutorSnapshot {
  const next = advance(snapshot, snapshot.context.state, event);
  return withState(next.settled, next.state);
}

/**
 * One event folded into `state`, the executor's current state (whatever the
 * context of `settled` says): where the machine settled, and the new state.
 * The snapshot itself is only built when asked for (withState), so a fold over
 * many events (foldEvents) builds one, not one an event.
 */
function advance(settled: ExecutorSnapshot, state: ExecutorState | null, event: RecordedEvent): { settled: ExecutorSnapshot; state: ExecutorState | null } {
  if (settled.status === "done") {
    const executorId = state?.executorId ?? "an unadmitted executor";
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId}: it is already ${String(settled.value)}`);
  }
  const step = stepOf(settled, event);
  if (!step) {
    const next = machineTransition(withState(settled, state), event);
    return { settled: next, state: next.context.state };
  }
  let folded = state;
  for (const update of step.updates) folded = updates[update](folded, event);
  if (step.refuse) throw refusal(withState(settled, state), event);
  const settledBy = step.then ? step.then.findIndex((t) => t.guard === undefined || predicates[t.guard](folded!)) : -1;
  const known = step.settled[settledBy + 1];
  if (known) return { settled: known, state: folded };
  // The first time: XState itself transitions, and where it settled is kept.
  const next = machineTransition(withState(settled, state), event);
  step.settled[settledBy + 1] = { ...next, context: { state: null } };
  return { settled: next, state: next.context.state };
}

/** `settled` with `state` as its context, unless it already has it. */
const withState = (settled: ExecutorSnapshot, state: ExecutorState | null): ExecutorSnapshot =>
  settled.context.state === state ? settled : { ...settled, context: { state } };

/**
 * XState's own transition, with the machine's refusals and errors named: what
 * foldEvent does where it has no cached step (exported for the test that holds
 * the cached steps to it).
 */
export function machineTransition(snapshot: ExecutorSnapshot, event: RecordedEvent): ExecutorSnapshot {
  executed.length = 0;
  const next = executorMachine.transition(snapshot, event, inertScope);
  if (executed.some((a) => a.type === "refuse")) throw refusal(snapshot, event);
  // A fold that threw (e.g. an outcome for a tool use that was never made) leaves the snapshot in error.
  if (next.status === "error") {
    const executorId = snapshot.context.state?.executorId ?? "an unadmitted executor";
    throw new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId}: ${(next.error as Error)?.message ?? String(next.error)}`);
  }
  return next;
}

function refusal(snapshot: ExecutorSnapshot, event: RecordedEvent): Error {
  const executorId = snapshot.context.state?.executorId ?? "an unadmitted executor";
  return new Error(`${event.type} (v${event.streamVersion}) cannot happen to ${executorId} in its current state (${String(snapshot.value)})`);
}

type UpdateName = keyof typeof updates;
type GuardName = keyof typeof predicates;

/** The machine's answer to an event type in a state, as XState selected it. */
interface Step {
  updates: UpdateName[];
  refuse: boolean;
  /** The eventless transitions of the target, in order; the first whose guard holds is taken. */
  then: { guard: GuardName | undefined }[] | null;
  /** The snapshot XState settled in, by which eventless transition was taken (0: none); its context is replaced. */
  settled: (ExecutorSnapshot | undefined)[];
}

/** By state value, then event type; null where XState's full transition is needed. */
const steps = new Map<string, Map<string, Step | null>>();

function stepOf(snapshot: ExecutorSnapshot, event: RecordedEvent): Step | null {
  if (typeof snapshot.value !== "string") return null;
  let byType = steps.get(snapshot.value);
  if (!byType) steps.set(snapshot.value, (byType = new Map()));
  let step = byType.get(event.type);
  if (step === undefined) {
    step = cacheable(executorMachine.getTransitionData(snapshot, event), executorMachine.root.states[snapshot.value]);
    byType.set(event.type, step);
  }
  return step;
}

/**
 * A step for what is simple enough to replay without XState: one unguarded
 * transition whose actions are named updates (or the refusal), in a machine of
 * flat states with no entry, exit, invoke, delay or history; its target's
 * eventless transitions guarded by named guards, each to a state with none.
 */
function cacheable(
  transitions: readonly { guard?: unknown; actions: readonly unknown[]; target?: readonly AnyStateNode[] }[],
  current: AnyStateNode | undefined,
): Step | null {
  if (!plainMachine || !current || transitions.length !== 1) return null;
  const [t] = transitions;
  if (t.guard !== undefined || (t.target && t.target.length !== 1)) return null;
  const names = t.actions.map((a) => (typeof a === "string" ? a : null));
  if (!names.every((n) => n === "refuse" || (n !== null && n in updates))) return null;
  // A transition without a target stays where it is; XState then looks at that state's eventless transitions.
  const always = (t.target?.[0] ?? current).always;
  if (always?.some((a) => (a.guard !== undefined && !(typeof a.guard === "string" && a.guard in predicates)) || a.actions.length > 0 || a.target?.length !== 1 || a.target[0].always)) {
    return null;
  }
  return {
    updates: names.filter((n): n is UpdateName => n !== "refuse"),
    refuse: names.includes("refuse"),
    then: always ? always.map((a) => ({ guard: a.guard as GuardName | undefined })) : null,
    settled: [],
  };
}

/** True while the machine has only what the cached steps replay: flat states, no entry, exit, invoke, delay or history. */
const plainMachine = [executorMachine.root, ...Object.values(executorMachine.root.states)].every(
  (n, i) =>
    n.entry.length === 0 &&
    n.exit.length === 0 &&
    n.invoke.length === 0 &&
    n.after.length === 0 &&
    (i === 0 ? n.type === "compound" : n.type === "atomic" || n.type === "final") &&
    (i === 0 || Object.keys(n.states).length === 0),
);

/** The snapshot of an executor after its events, from the start: one snapshot built, at the end. */
export function foldEvents(events: readonly RecordedEvent[]): ExecutorSnapshot {
  let next = { settled: (initial ??= frozen(initialExecutorSnapshot())), state: null as ExecutorState | null };
  for (const event of events) next = advance(next.settled, next.state, event);
  return withState(next.settled, next.state);
}

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
