import type { NewEvent } from "../../events/index.ts";

/** A valid `turn` event for the given executor; the body varies with `text`. */
export function turnEvent(runId: string, executorId: string, turn: number, text = `answer ${turn}`): NewEvent {
  return {
    type: "turn",
    data: {
      turn,
      request: { model: "scripted:test", messageCount: turn, toolNames: [], digest: "a".repeat(64) },
      response: { content: [{ type: "text", text }], stopReason: "end_turn" },
      usage: { inputTokens: 10, outputTokens: 5 },
      model: "scripted:test",
      provider: "scripted",
      scripted: true,
      latencyMs: 0,
    },
    metadata: { runId, executorId },
  };
}

export function cancelledEvent(runId: string, executorId: string, reason = "operator asked"): NewEvent {
  return { type: "cancelled", data: { reason, by: "operator" }, metadata: { runId, executorId } };
}
