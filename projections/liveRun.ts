import type { RecordedEvent } from "../events/index.ts";
import type { Projection } from "./projection.ts";
import { type RunProjectionState, runProjection } from "./runProjection.ts";
import { type ToolsInFlightState, toolsInFlight } from "./toolsInFlight.ts";

/** What a live view of a run shows: the run's projections, the tool calls under way, and when the run began. */
export interface LiveRunState {
  run: RunProjectionState;
  tools: ToolsInFlightState;
  /** The earliest and latest events' times (the log's clock); null before any. */
  startedAt: string | null;
  lastAt: string | null;
}

/** The run's projections and its tool calls in flight, as one fold (cli/live renders it). */
export const liveRun: Projection<LiveRunState> = {
  name: "live-run",
  initial: () => ({ run: runProjection.initial(), tools: toolsInFlight.initial(), startedAt: null, lastAt: null }),
  evolve: (state, event: RecordedEvent) => {
    const at = event.recordedAt.toISOString();
    return {
      run: runProjection.evolve(state.run, event),
      tools: toolsInFlight.evolve(state.tools, event),
      startedAt: state.startedAt === null || at < state.startedAt ? at : state.startedAt,
      lastAt: state.lastAt === null || at > state.lastAt ? at : state.lastAt,
    };
  },
};
