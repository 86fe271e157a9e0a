import { type Actor, type InspectionEvent, type SnapshotFrom, createActor, fromTransition } from "xstate";
import type { RecordedEvent } from "../../events/index.ts";
import { type ExecutorFold, type ExecutorStatus, type Folded, UNADMITTED, admitted, foldEvent, isFinal } from "./executorMachine.ts";
import type { ExecutorState } from "./executorState.ts";

/**
 * The executor machine as live actor logic, by XState's public API: the one
 * fold (foldEvent) as a transition function (`fromTransition`). Persistence,
 * restoring, subscriptions and inspection are XState's; no internals are read.
 */
export const liveExecutorLogic = fromTransition((folded: Folded, event: RecordedEvent) => foldEvent(folded, event), UNADMITTED);

export type ExecutorSnapshot = SnapshotFrom<typeof liveExecutorLogic>;

export interface ExecutorActorOptions {
  /** A snapshot persisted earlier (`persisted()`), restored before the events given (the stream's tail after it) are sent. */
  snapshot?: unknown;
  /** XState's inspection API: sees this executor's every event and snapshot. */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * A live executor: an XState actor whose only inputs are recorded events, each
 * sent after it was appended. It is rebuilt from its stream (every event sent
 * in order) or restored from a persisted snapshot plus the events after it.
 * An event the fold refuses throws from `apply`, naming it.
 */
export class ExecutorActor implements ExecutorFold {
  readonly actor: Actor<typeof liveExecutorLogic>;
  private failure = null as { error: unknown } | null;

  constructor(events: readonly RecordedEvent[] = [], options: ExecutorActorOptions = {}) {
    this.actor = createActor(liveExecutorLogic, {
      ...(options.snapshot !== undefined && { snapshot: options.snapshot as ExecutorSnapshot }),
      ...(options.inspect && { inspect: options.inspect }),
    });
    this.actor.subscribe({ error: (error) => (this.failure = { error }) });
    this.actor.start();
    for (const e of events) this.apply(e);
  }

  apply(event: RecordedEvent): void {
    // A final executor takes no more events: the fold names the one that came too late.
    if (this.done) foldEvent(this.folded, event);
    this.rethrow();
    this.actor.send(event);
    this.rethrow();
  }

  /** The fold refused an event (the actor stopped in error): every later event is refused with it. */
  private rethrow(): void {
    const failure = this.failure;
    if (failure) throw failure.error;
  }

  /** The executor as folded so far: what the fold steps on from (the runner's held outcomes, executorLog.ts). */
  get folded(): Folded {
    return this.actor.getSnapshot().context;
  }

  get status(): ExecutorStatus {
    return this.folded.status;
  }

  get state(): ExecutorState {
    return admitted(this.folded);
  }

  get done(): boolean {
    return isFinal(this.folded);
  }

  /** The actor's snapshot as JSON-safe data, to restore it later with `new ExecutorActor(tail, { snapshot })`. */
  persisted(): unknown {
    return this.actor.getPersistedSnapshot();
  }
}
