import type { ToolEffect, ToolOutput } from "../../tools/index.ts";
import type { Call } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";

/**
 * A tool's output (and what was sanitised in it), recorded against its intent,
 * with the sources it read, the artifacts it produced and the URLs it showed
 * the model (which the executor may fetch next).
 */
export function toolCompleted(call: Call, output: string | ToolOutput): Draft {
  const { output: text, sources, artifacts, links, sanitized } = typeof output === "string" ? ({ output } as ToolOutput) : output;
  return {
    type: "tool_completed",
    data: {
      toolUseId: call.toolUseId,
      tool: call.name,
      output: text,
      artifacts: artifacts ?? [],
      sources: sources ?? [],
      ...(links?.length ? { links } : {}),
      ...(sanitized ? { sanitized } : {}),
    },
    causationId: call.intentEventId,
  };
}

/**
 * A tool that threw. Aborted by a cancel, a tool that may have changed
 * something has an unknown outcome and is reported so, never as "failed";
 * a read-only one simply did not finish. A tool's own refusal (a URL the
 * executor has not seen) is recorded with its reason.
 */
export function toolThrew(call: Call, effect: ToolEffect, message: string, cancelled: boolean, refused?: "not_reachable"): Draft {
  if (cancelled && effect !== "read_only") {
    return { type: "effect_unknown", data: { toolUseId: call.toolUseId, tool: call.name, effect, note: message }, causationId: call.intentEventId };
  }
  return {
    type: "tool_failed",
    data: { toolUseId: call.toolUseId, tool: call.name, reason: cancelled ? "cancelled" : (refused ?? "error"), message },
    causationId: call.intentEventId,
  };
}
