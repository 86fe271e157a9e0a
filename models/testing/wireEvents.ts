/**
 * The Messages API wire format, built from a short reply description: the
 * JSON Message of a plain call and the SSE events of a streamed one, in the
 * order and shape Anthropic sends them.
 */

export type WireBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id?: string; name: string; input: unknown };

export interface WireReply {
  content: WireBlock[];
  /** Default: "tool_use" when a tool_use block is present, else "end_turn". */
  stopReason?: string;
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  /** Default: the model the request named. */
  model?: string;
  /** Pieces each text or tool input is streamed in; default 3. */
  chunks?: number;
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Ids are derived from the request number, so a test can predict them. */
export function toWireMessage(reply: WireReply, requestModel: string, requestNumber: number) {
  const usage = reply.usage ?? { input_tokens: 12, output_tokens: 34 };
  return {
    id: `msg_wire_${requestNumber}`,
    type: "message",
    role: "assistant",
    model: reply.model ?? requestModel,
    content: reply.content.map((block, i) =>
      block.type === "text" ? block : { ...block, id: block.id ?? `toolu_wire_${requestNumber}_${i}` },
    ),
    stop_reason: reply.stopReason ?? (reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
  };
}

export function toSseEvents(reply: WireReply, requestModel: string, requestNumber: number): SseEvent[] {
  const message = toWireMessage(reply, requestModel, requestNumber);
  const chunks = reply.chunks ?? 3;
  const events: SseEvent[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
      },
    },
  ];
  message.content.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: start } });
    if (index === 0) events.push({ event: "ping", data: { type: "ping" } });
    const deltas =
      block.type === "text"
        ? split(block.text, chunks).map((text) => ({ type: "text_delta", text }))
        : // Anthropic opens every tool input with an empty partial_json.
          ["", ...split(JSON.stringify(block.input), chunks)].map((partial_json) => ({ type: "input_json_delta", partial_json }));
    for (const delta of deltas) {
      events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

export function errorBody(errorType: string, message: string, requestId: string, details?: Record<string, unknown>) {
  return { type: "error", error: { type: errorType, message, ...(details ? { details } : {}) }, request_id: requestId };
}

export const formatSse = (e: SseEvent): string => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;

/** Splits into at most `n` non-empty pieces (one empty piece for an empty string). */
function split(text: string, n: number): string[] {
  if (text.length === 0) return [""];
  const size = Math.ceil(text.length / Math.max(1, n));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
