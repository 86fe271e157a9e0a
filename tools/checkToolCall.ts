import type { ToolUseBlock } from "../models/types.ts";

export interface ToolCallRefusal {
  toolUseId: string;
  name: string;
  reason: "not_granted";
  /** Written for the model: what happened, what it may use instead. */
  message: string;
}

export type ToolCallCheck = { ok: true } | { ok: false; refusal: ToolCallRefusal };

export function checkToolCall(grant: Iterable<string>, toolUse: ToolUseBlock): ToolCallCheck {
  const granted = [...new Set(grant)];
  if (granted.includes(toolUse.name)) return { ok: true };
  const instead = granted.length
    ? `Tools granted to this executor: ${granted.join(", ")}. Use one of those, or record what you could not do as a gap in your handoff.`
    : "No tools are granted to this executor. Record what you could not do as a gap in your handoff.";
  return {
    ok: false,
    refusal: {
      toolUseId: toolUse.id,
      name: toolUse.name,
      reason: "not_granted",
      message: `Tool "${toolUse.name}" is not granted to this executor, so the call was not run. ${instead}`,
    },
  };
}
