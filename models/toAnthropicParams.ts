import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantBlock, Message, ModelRequest, ToolSpec, UserBlock } from "./types.ts";

export type AnthropicParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * ModelRequest -> Messages API body. Blocks are copied field by field so only
 * what the API knows goes over the wire, whatever else callers attached.
 */
export function toAnthropicParams(request: ModelRequest, model: string): AnthropicParams {
  return {
    model,
    max_tokens: request.maxTokens,
    messages: request.messages.map(toMessageParam),
    // An empty system prompt or tool list is left out rather than sent empty.
    ...(request.system ? { system: request.system } : {}),
    ...(request.tools.length ? { tools: request.tools.map(toTool) } : {}),
  };
}

function toMessageParam(message: Message): Anthropic.MessageParam {
  if (message.role === "assistant") return { role: "assistant", content: message.content.map(toAssistantBlock) };
  const content = typeof message.content === "string" ? message.content : message.content.map(toUserBlock);
  return { role: "user", content };
}

function toAssistantBlock(block: AssistantBlock): Anthropic.ContentBlockParam {
  return block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "tool_use", id: block.id, name: block.name, input: block.input };
}

function toUserBlock(block: UserBlock): Anthropic.ContentBlockParam {
  if (block.type === "text") return { type: "text", text: block.text };
  return {
    type: "tool_result",
    tool_use_id: block.tool_use_id,
    content: block.content,
    ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
  };
}

function toTool(tool: ToolSpec): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    // zod's JSON Schema for an object input always has type "object".
    input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
  };
}
