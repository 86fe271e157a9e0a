/**
 * The Messages API wire format, built from a short reply description: the
 * JSON Message of a plain call and the SSE events of a streamed one, in the
 * order and shape Anthropic sends them.
 */

/**
 * A block of a scripted reply. The server-side search blocks replay what a
 * test wrote: the wire server runs no search (its results' encrypted_content
 * says so, see scriptedSearchResult).
 */
export type WireBlock =
  /** `citations`: web_search_result_location citations streamed as citations_delta, as Anthropic cites search results. */
  | { type: "text"; text: string; citations?: unknown[] }
  | { type: "tool_use"; id?: string; name: string; input: unknown }
  | { type: "server_tool_use"; id: string; name: "web_search"; input: { query: string } }
  | { type: "web_search_tool_result"; tool_use_id: string; content: WireSearchResult[] | { type: "web_search_tool_result_error"; error_code: string } };

/** One hit of a scripted server-side search, in Anthropic's shape. */
export interface WireSearchResult {
  type: "web_search_result";
  url: string;
  title: string;
  encrypted_content: string;
  page_age: string | null;
}

/** A scripted search hit: its encrypted_content names the wire server, so nothing mistakes it for Anthropic's. */
export const scriptedSearchResult = (url: string, title: string, pageAge: string | null = null): WireSearchResult => ({
  type: "web_search_result",
  url,
  title,
  encrypted_content: `scripted-by-ariadne-wire-server:${Buffer.from(url).toString("base64")}`,
  page_age: pageAge,
});

export interface WireReply {
  content: WireBlock[];
  /** Default: "tool_use" when a tool_use block is present, else "end_turn". */
  stopReason?: string;
  /** server_tool_use defaults to the reply's server_tool_use blocks counted as web searches. */
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number; server_tool_use?: { web_search_requests: number; web_fetch_requests?: number } };
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
  const searches = reply.content.filter((b) => b.type === "server_tool_use").length;
  const usage = { ...(searches ? { server_tool_use: { web_search_requests: searches, web_fetch_requests: 0 } } : {}), ...(reply.usage ?? { input_tokens: 12, output_tokens: 34 }) };
  return {
    id: `msg_wire_${requestNumber}`,
    type: "message",
    role: "assistant",
    model: reply.model ?? requestModel,
    content: reply.content.map((block, i) => (block.type === "tool_use" ? { ...block, id: block.id ?? `toolu_wire_${requestNumber}_${i}` } : block)),
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
    // A search's result block arrives whole in its start event; text and tool inputs stream as deltas.
    const start = block.type === "text" ? { type: "text", text: "", ...(block.citations && { citations: [] }) } : block.type === "web_search_tool_result" ? block : { ...block, input: {} };
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: start } });
    if (index === 0) events.push({ event: "ping", data: { type: "ping" } });
    const deltas =
      block.type === "web_search_tool_result"
        ? []
        : block.type === "text"
          ? [...split(block.text, chunks).map((text) => ({ type: "text_delta", text })), ...(block.citations ?? []).map((citation) => ({ type: "citations_delta", citation }))]
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
      usage: { output_tokens: message.usage.output_tokens, ...("server_tool_use" in message.usage && { server_tool_use: message.usage.server_tool_use }) },
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
