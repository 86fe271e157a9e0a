import { EXECUTOR_EVENT_TYPES, type ExecutorStatus, type Folded, UNADMITTED, foldEvent, isFinal } from "../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../actors/fold/executorState.ts";
import type { RecordedEvent } from "../events/index.ts";

/**
 * The one executor fold (actors/fold/executorMachine.ts's foldEvent, the same
 * the live actor, rebuilds and transcripts step through), as a projection
 * steps it: a folded executor in, a folded executor out, no running actor.
 * This file is the only place projections/ touches the executor fold.
 */
export type ExecutorSnapshot = Folded;

/**
 * True for an event type the executor fold has no transition for. Projections
 * pass these by (the catalogue grows while readers keep working); the driver,
 * which folds its own stream with the machine, is where such a type is refused.
 */
export const unknownToExecutorFold = (event: RecordedEvent): boolean => !EXECUTOR_EVENT_TYPES.has(event.type);

export const startExecutor = (): ExecutorSnapshot => UNADMITTED;

/**
 * Folds one event. An event the machine refuses (as it does for the runner and
 * on rebuild) leaves the executor as it was and is reported, so one illegal
 * stream shows up in its executor's progress instead of stopping every projection.
 */
export function stepExecutor(snapshot: ExecutorSnapshot, event: RecordedEvent): { snapshot: ExecutorSnapshot; error: string | null } {
  try {
    return { snapshot: foldEvent(snapshot, event), error: null };
  } catch (error) {
    return { snapshot, error: (error as Error).message ?? String(error) };
  }
}

export const statusOf = (snapshot: ExecutorSnapshot): ExecutorStatus => snapshot.status;
export const stateOf = (snapshot: ExecutorSnapshot): ExecutorState | null => snapshot.state;
export const isDone = (snapshot: ExecutorSnapshot): boolean => isFinal(snapshot);
