import type { RecordedEvent } from "../events/index.ts";
import { executorStreamId } from "../events/streamIds.ts";

/**
 * A projection is a pure fold over recorded events: `initial()` then
 * `evolve(state, event)` for each event, nothing else. It must ignore event
 * types it does not know, so it keeps working while the catalogue grows, and it
 * must give the same state whatever order events of *different* streams arrive
 * in (a subscription reads in commit order, `readRun` in position order).
 */
export interface Projection<S> {
  readonly name: string;
  initial(): S;
  evolve(state: S, event: RecordedEvent): S;
}

/** Folds events from the initial state. */
export const foldAll = <S>(projection: Projection<S>, events: Iterable<RecordedEvent>): S => {
  let state = projection.initial();
  for (const event of events) state = projection.evolve(state, event);
  return state;
};

/** The executor stream an event sits in, or null for a run-level stream (`run-<runId>`, …). */
export const executorStreamOf = (event: RecordedEvent): string | null =>
  event.streamId === executorStreamId(event.metadata.executorId) ? event.metadata.executorId : null;

/** A payload read field by field: for facts whose schemas other modules are still adding. */
export const fieldsOf = (event: RecordedEvent): Record<string, unknown> =>
  event.data !== null && typeof event.data === "object" ? (event.data as Record<string, unknown>) : {};

export const numberOr = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) ? value : fallback;
