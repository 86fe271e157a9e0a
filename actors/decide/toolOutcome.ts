import type { ToolEffect, ToolOutput } from "../../tools/index.ts";
import type { Call } from "../executorState.ts";
import type { Draft } from "./draft.ts";

/** A tool's output (and what was sanitised in it), recorded against its intent. */
export function toolCompleted(call: Call, output: string | ToolOutput): Draft {
  const result = typeof output === "string" ? { output } : output;
  return { type: "tool_completed", data: { toolUseId: call.toolUseId, tool: call.name, ...result, artifacts: [] }, causationId: call.intentEventId };
}

/**
 * A tool that threw. Aborted by a cancel, a tool that may have changed
 * something has an unknown outcome and is reported so, never as "failed";
 * a read-only one simply did not finish.
 */
export function toolThrew(call: Call, effect: ToolEffect, message: string, cancelled: boolean): Draft {
  if (cancelled && effect !== "read_only") {
    return { type: "effect_unknown", data: { toolUseId: call.toolUseId, tool: call.name, effect, note: message }, causationId: call.intentEventId };
  }
  return {
    type: "tool_failed",
    data: { toolUseId: call.toolUseId, tool: call.name, reason: cancelled ? "cancelled" : "error", message },
    causationId: call.intentEventId,
  };
}
