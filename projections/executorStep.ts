import { type SnapshotFrom, initialTransition } from "xstate";
import { type ExecutorStatus, executorMachine, foldEvent } from "../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../actors/fold/executorState.ts";
import type { RecordedEvent } from "../events/index.ts";

/**
 * The one executor fold (actors/fold/executorMachine.ts, the machine `foldExecutor`
 * runs), stepped with XState's pure `transition()` so a projection stays a pure
 * fold: a snapshot in, a snapshot out, no running actor. This file is the only
 * place projections/ touches the executor fold; when actors/ exports a pure step
 * of its own, it replaces the body of `stepExecutor` and nothing else changes.
 */
export type ExecutorSnapshot = SnapshotFrom<typeof executorMachine>;

/** Event types the machine names; the wildcard (its refusal) does not count. */
const KNOWN = new Set(executorMachine.events.filter((t) => t !== "*"));

/**
 * True for an event type the executor fold has no transition for. Projections
 * pass these by (the catalogue grows while readers keep working); the driver,
 * which folds its own stream with the machine, is where such a type is refused.
 */
export const unknownToExecutorFold = (event: RecordedEvent): boolean => !KNOWN.has(event.type);

export const startExecutor = (): ExecutorSnapshot => initialTransition(executorMachine)[0];

/**
 * Folds one event. An event the machine refuses (as it does for the runner and
 * on rebuild) leaves the snapshot as it was and is reported, so
 * one illegal stream shows up in its executor's progress instead of stopping
 * every projection.
 */
export function stepExecutor(snapshot: ExecutorSnapshot, event: RecordedEvent): { snapshot: ExecutorSnapshot; error: string | null } {
  try {
    return { snapshot: foldEvent(snapshot, event), error: null };
  } catch (error) {
    return { snapshot, error: (error as Error).message ?? String(error) };
  }
}

export const statusOf = (snapshot: ExecutorSnapshot): ExecutorStatus => snapshot.value as ExecutorStatus;
export const stateOf = (snapshot: ExecutorSnapshot): ExecutorState | null => snapshot.context.state;
export const isDone = (snapshot: ExecutorSnapshot): boolean => snapshot.status === "done";
