import type Anthropic from "@anthropic-ai/sdk";
import { sanitizeText } from "../core/sanitizeText.ts";
import { ModelCallError } from "./modelCallError.ts";
import type { AssistantBlock, ModelResponse, StopReason } from "./types.ts";

const STOP_REASONS: Record<Anthropic.StopReason, StopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  refusal: "refusal",
  pause_turn: "pause_turn",
  // Also "out of room": the caller handles it as it handles max_tokens.
  model_context_window_exceeded: "max_tokens",
};

/** The SDK's final Message -> ModelResponse. Anything we did not ask for is an error, not dropped. */
export function fromAnthropicMessage(message: Anthropic.Message): ModelResponse {
  if (message.stop_reason === null) {
    throw new ModelCallError({
      kind: "incomplete_stream",
      retryable: true,
      message: "the model's message ended without a stop_reason (no message_delta arrived)",
    });
  }
  const stopReason = STOP_REASONS[message.stop_reason];
  if (stopReason === undefined) {
    throw new ModelCallError({
      kind: "api_error",
      retryable: false,
      message: `the model stopped for a reason Ariadne does not know: ${String(message.stop_reason)}`,
    });
  }
  const { value: content, notes } = sanitizeText(message.content.map(toAssistantBlock), "content");
  return {
    content,
    stopReason,
    usage: usageOf(message.usage),
    model: message.model,
    ...(message.id ? { responseId: message.id } : {}),
    scripted: false,
    ...(notes.length ? { sanitized: notes } : {}),
  };
}

/**
 * A text block's citations are left out: with server search they point into
 * encrypted result content, and a claim cites only bytes web_fetch or
 * document_read stored. Server search blocks are kept whole (their results
 * go back to the API as they came).
 */
function toAssistantBlock(block: Anthropic.ContentBlock): AssistantBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "tool_use") return { type: "tool_use", id: block.id, name: block.name, input: block.input };
  if (block.type === "server_tool_use" && block.name === "web_search") return { type: "server_tool_use", id: block.id, name: "web_search", input: block.input };
  if (block.type === "web_search_tool_result") {
    const { content } = block;
    return {
      type: "web_search_tool_result",
      tool_use_id: block.tool_use_id,
      content: Array.isArray(content)
        ? content.map((r) => ({ type: "web_search_result", url: r.url, title: r.title, encrypted_content: r.encrypted_content, page_age: r.page_age ?? null }))
        : { type: "web_search_tool_result_error", error_code: content.error_code },
    };
  }
  // Ariadne enables neither thinking nor other server tools, so these mean a request went out wrong.
  throw new ModelCallError({
    kind: "api_error",
    retryable: false,
    message: `the model returned a ${block.type === "server_tool_use" ? `server_tool_use ${block.name}` : block.type} block; Ariadne only handles text, tool_use and server-side web_search`,
  });
}

/** Anthropic's usage -> Usage: the cache counts kept when reported (they are priced apart: governance/prices.ts). */
export function usageOf(usage: Anthropic.Usage): ModelResponse["usage"] {
  const write = usage.cache_creation_input_tokens;
  const read = usage.cache_read_input_tokens;
  const searches = usage.server_tool_use?.web_search_requests;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(typeof write === "number" ? { cacheCreationInputTokens: write } : {}),
    ...(typeof read === "number" ? { cacheReadInputTokens: read } : {}),
    ...(typeof searches === "number" && searches > 0 ? { webSearchRequests: searches } : {}),
  };
}
