import { isFinalEvent } from "../events/finalEvents.ts";
import { type Projection, executorStreamOf } from "./projection.ts";

/** A tool call the model asked for whose outcome is not recorded yet. */
export interface ToolInFlight {
  toolUseId: string;
  tool: string;
  /** When its turn (or, in a log without the turn, its intent) was recorded: the log's clock. */
  since: string;
}

/** Open tool calls per executor, in the order they were called. */
export type ToolsInFlightState = Record<string, ToolInFlight[]>;

const OUTCOMES = new Set(["tool_completed", "tool_failed", "effect_unknown"]);
/** The terminal call's outcome: the executor is finishing, nothing of its turn is in flight. */
const FINISHING = new Set(["handoff_committed", "check_submitted"]);

/**
 * Tool calls under way, per executor: a `turn` opens each tool use it asked
 * for (a read-only call's intent is recorded with its outcome, in one row, so
 * the turn is the only sign of it while it runs), a `tool_called` opens one the
 * turn did not, its outcome (completed, failed, unknown) closes it, and a
 * committed handoff, a check or the executor's final event closes whatever it
 * left open. Each executor's calls sit in its own stream, so the order other
 * streams are read in does not matter.
 */
export const toolsInFlight: Projection<ToolsInFlightState> = {
  name: "tools-in-flight",
  initial: () => ({}),
  evolve(state, event) {
    const executorId = executorStreamOf(event);
    if (!executorId) return state;
    const open = state[executorId] ?? [];
    const since = event.recordedAt.toISOString();
    if (event.type === "turn") {
      const uses = event.data.response.content.flatMap((b) => (b.type === "tool_use" && !open.some((c) => c.toolUseId === b.id) ? [{ toolUseId: b.id, tool: b.name, since }] : []));
      return uses.length ? { ...state, [executorId]: [...open, ...uses] } : state;
    }
    if (event.type === "tool_called") {
      if (open.some((c) => c.toolUseId === event.data.toolUseId)) return state;
      return { ...state, [executorId]: [...open, { toolUseId: event.data.toolUseId, tool: event.data.tool, since }] };
    }
    if (OUTCOMES.has(event.type)) {
      const id = (event.data as { toolUseId: string }).toolUseId;
      return open.some((c) => c.toolUseId === id) ? { ...state, [executorId]: open.filter((c) => c.toolUseId !== id) } : state;
    }
    if ((isFinalEvent(event) || FINISHING.has(event.type)) && open.length) return { ...state, [executorId]: [] };
    return state;
  },
};
