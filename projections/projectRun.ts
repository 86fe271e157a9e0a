import type { EventStore, RecordedEvent } from "../events/index.ts";
import { foldAll } from "./projection.ts";
import { type RunProjectionState, runProjection } from "./runProjection.ts";
import { type RunView, runView } from "./runView.ts";
import { readKnownRun } from "../events/readKnownRun.ts";

/** A run's projection from its events (pure); the events must all belong to one run. */
export function foldRun(events: readonly RecordedEvent[]): RunProjectionState {
  return foldAll(runProjection, events);
}

/**
 * One run's view, folded from zero from the run's events (`store.readRun`): for
 * one-shot readers such as `ariadne status` or an HTTP request, which need no
 * subscription. An unknown run id is a NotFoundError naming it. `ownerLive` as
 * in runView: runs/ knows whether a live process holds the run.
 */
export async function projectRun(store: EventStore, runId: string, ownership: { ownerLive?: boolean } = {}): Promise<RunView> {
  const events = await readKnownRun(store, runId);
  return runView(foldRun(events), ownership);
}
