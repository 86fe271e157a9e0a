import type { Draft, RecordedEvent } from "../events/index.ts";
import type { Fact, InFlight } from "./decide/index.ts";
import type { ExecutorState } from "./fold/executorState.ts";
import type { RoleRecord } from "./request/roles.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

/**
 * What an effect performed for one executor (a model turn, waiting for
 * Children) may use of its runner: the folded state, the write queue, the
 * waits a cancel must reach. The runner is this; performers never see more.
 */
export interface RunnerPort {
  readonly state: ExecutorState;
  readonly role: RoleRecord;
  readonly services: RuntimeServices;
  readonly signal: AbortSignal;
  readonly cancelling: boolean;
  /** The effect's value, or null as soon as a cancel request trips the runner. */
  untilInterrupted<T>(effect: Promise<T>): Promise<T | null>;
  /** Effects under way, by key, so a cancel can name them. */
  readonly inFlight: Map<string, InFlight>;
  record(drafts: readonly Draft[]): Promise<RecordedEvent[]>;
  /** Folds a read-only call's outcome now and appends it with the executor's next append, one row with its intent if that is still held (a crash before then runs the call again). */
  hold(drafts: readonly Draft[]): void;
  /** Records what `decide` makes of a fact; on a conflict it folds and records on top. */
  recordFact(fact: Fact): Promise<RecordedEvent[]>;
  /** Records a pure decision; on a conflict it writes nothing and the loop decides again. */
  decided(fact: Fact): Promise<void>;
  /** Runs a long effect, counted as a wait the inbox watch keeps an eye on. */
  during<T>(effect: Promise<T>): Promise<T>;
  /** A long effect that a cancel ends even if it ignores its AbortSignal. */
  abortable<T>(effect: Promise<T>): Promise<T>;
}
