import { type Actor, type InspectionEvent, createActor } from "xstate";
import type { RecordedEvent } from "../../events/index.ts";
import { type ExecutorFold, type ExecutorSnapshot, type ExecutorStatus, executorMachine, foldEvent } from "./executorMachine.ts";
import type { ExecutorState } from "./executorState.ts";

/**
 * The executor machine as live actor logic: the machine itself, except that
 * its transition is the one fold (foldEvent: XState's own transition, its
 * answers cached per state and event type, see executorMachine.ts). The
 * initial snapshot, persistence, restoring and inspection are XState's.
 */
export const liveExecutorLogic: typeof executorMachine = Object.create(executorMachine, {
  transition: { value: (snapshot: ExecutorSnapshot, event: RecordedEvent) => foldEvent(snapshot, event) },
});

export interface ExecutorActorOptions {
  /** A snapshot persisted earlier (`persisted()`), restored before the events given (the stream's tail after it) are sent. */
  snapshot?: unknown;
  /** XState's inspection API: sees this executor's every event and snapshot. */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * A live executor: an XState actor of the executor machine whose only inputs
 * are recorded events, each sent after it was appended. It is rebuilt from its
 * stream (every event sent in order) or restored from a persisted snapshot
 * plus the events after it. An event the machine refuses throws from `apply`,
 * naming it, as the fold does.
 */
export class ExecutorActor implements ExecutorFold {
  readonly actor: Actor<typeof executorMachine>;
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
    // A final actor takes no more events: the fold names the one that came too late.
    if (this.done) foldEvent(this.actor.getSnapshot(), event);
    this.rethrow();
    this.actor.send(event);
    this.rethrow();
  }

  /** The machine refused an event (the actor stopped in error): every later event is refused with it. */
  private rethrow(): void {
    const failure = this.failure;
    if (failure) throw failure.error;
  }

  get status(): ExecutorStatus {
    return this.actor.getSnapshot().value as ExecutorStatus;
  }

  get state(): ExecutorState {
    const s = this.actor.getSnapshot().context.state;
    if (!s) throw new Error("executor not admitted yet");
    return s;
  }

  get done(): boolean {
    return this.actor.getSnapshot().status === "done";
  }

  /** The actor's snapshot as JSON-safe data, to restore it later with `new ExecutorActor(tail, { snapshot })`. */
  persisted(): unknown {
    return this.actor.getPersistedSnapshot();
  }
}
