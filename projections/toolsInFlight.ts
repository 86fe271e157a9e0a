import { isFinalEvent } from "../events/finalEvents.ts";
import { type Projection, executorStreamOf } from "./projection.ts";

/** A tool call whose intent is recorded and whose outcome is not yet. */
export interface ToolInFlight {
  toolUseId: string;
  tool: string;
  /** When its intent was recorded (the log's clock). */
  since: string;
}

/** Open tool calls per executor, in the order they were called. */
export type ToolsInFlightState = Record<string, ToolInFlight[]>;

const OUTCOMES = new Set(["tool_completed", "tool_failed", "effect_unknown"]);

/**
 * Tool calls under way, per executor: a `tool_called` opens one, its outcome
 * (completed, failed, unknown) closes it, and an executor's final event closes
 * whatever it left open. Each executor's calls sit in its own stream, so the
 * order other streams are read in does not matter.
 */
export const toolsInFlight: Projection<ToolsInFlightState> = {
  name: "tools-in-flight",
  initial: () => ({}),
  evolve(state, event) {
    const executorId = executorStreamOf(event);
    if (!executorId) return state;
    const open = state[executorId] ?? [];
    if (event.type === "tool_called") {
      if (open.some((c) => c.toolUseId === event.data.toolUseId)) return state;
      return { ...state, [executorId]: [...open, { toolUseId: event.data.toolUseId, tool: event.data.tool, since: event.recordedAt.toISOString() }] };
    }
    if (OUTCOMES.has(event.type)) {
      const id = (event.data as { toolUseId: string }).toolUseId;
      return open.some((c) => c.toolUseId === id) ? { ...state, [executorId]: open.filter((c) => c.toolUseId !== id) } : state;
    }
    if (isFinalEvent(event) && open.length) return { ...state, [executorId]: [] };
    return state;
  },
};
