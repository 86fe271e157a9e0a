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

function toAssistantBlock(block: Anthropic.ContentBlock): AssistantBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "tool_use") return { type: "tool_use", id: block.id, name: block.name, input: block.input };
  // Ariadne enables neither thinking nor server tools, so these mean a request went out wrong.
  throw new ModelCallError({
    kind: "api_error",
    retryable: false,
    message: `the model returned a ${block.type} block; Ariadne only handles text and tool_use`,
  });
}

/** Anthropic's usage -> Usage: the cache counts kept when reported (they are priced apart: governance/prices.ts). */
export function usageOf(usage: Anthropic.Usage): ModelResponse["usage"] {
  const write = usage.cache_creation_input_tokens;
  const read = usage.cache_read_input_tokens;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(typeof write === "number" ? { cacheCreationInputTokens: write } : {}),
    ...(typeof read === "number" ? { cacheReadInputTokens: read } : {}),
  };
}
