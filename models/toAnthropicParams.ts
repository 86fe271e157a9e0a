import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantBlock, Message, ModelRequest, ServerWebSearch, ToolSpec, UserBlock } from "./types.ts";

export type AnthropicParams = Anthropic.MessageCreateParamsNonStreaming;

/** Anthropic's prompt cache marker: the prefix up to and including the marked block is cached (5 minutes). */
export const CACHE_BREAKPOINT = { type: "ephemeral" } as const;

/**
 * ModelRequest -> Messages API body. Blocks are copied field by field so only
 * what the API knows goes over the wire, whatever else callers attached.
 * Three prompt cache breakpoints (of the four allowed), for every role: the
 * last tool spec, the system prompt, and the last block of the conversation,
 * so the next turn of the same executor reads its whole prefix from the cache.
 * The request's digest is of the ModelRequest, so the markers never change it.
 * With `webSearch` (ARIADNE_SEARCH=anthropic), the web_search tool a request
 * offers goes out as Anthropic's server tool of that name instead.
 */
export function toAnthropicParams(request: ModelRequest, model: string, webSearch?: ServerWebSearch): AnthropicParams {
  const messages = request.messages.map(toMessageParam);
  markLastBlock(messages);
  return {
    model,
    max_tokens: request.maxTokens,
    messages,
    // An empty system prompt or tool list is left out rather than sent empty.
    ...(request.system ? { system: [{ type: "text" as const, text: request.system, cache_control: CACHE_BREAKPOINT }] } : {}),
    ...(request.tools.length ? { tools: request.tools.map((t, i, all) => (i === all.length - 1 ? { ...toTool(t, webSearch), cache_control: CACHE_BREAKPOINT } : toTool(t, webSearch))) } : {}),
  };
}

/** The conversation's breakpoint: its last block (a plain-string message, the first question, stays as it is: tools and system already cache). */
function markLastBlock(messages: Anthropic.MessageParam[]): void {
  const last = messages.at(-1);
  if (!last || typeof last.content === "string" || last.content.length === 0) return;
  const blocks = [...last.content];
  blocks[blocks.length - 1] = { ...blocks[blocks.length - 1], cache_control: CACHE_BREAKPOINT } as Anthropic.ContentBlockParam;
  messages[messages.length - 1] = { ...last, content: blocks } as Anthropic.MessageParam;
}

function toMessageParam(message: Message): Anthropic.MessageParam {
  if (message.role === "assistant") return { role: "assistant", content: message.content.map(toAssistantBlock) };
  const content = typeof message.content === "string" ? message.content : message.content.map(toUserBlock);
  return { role: "user", content };
}

/** A server search and its results go back exactly as they came (encrypted_content included), so the model sees the history it made. */
function toAssistantBlock(block: AssistantBlock): Anthropic.ContentBlockParam {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "server_tool_use":
      return { type: "server_tool_use", id: block.id, name: "web_search", input: block.input };
    case "web_search_tool_result":
      return {
        type: "web_search_tool_result",
        tool_use_id: block.tool_use_id,
        content: Array.isArray(block.content)
          ? block.content.map((r) => ({ type: "web_search_result" as const, url: r.url, title: r.title, encrypted_content: r.encrypted_content, page_age: r.page_age }))
          : { type: "web_search_tool_result_error", error_code: block.content.error_code as Anthropic.WebSearchToolResultErrorCode },
      };
  }
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

function toTool(tool: ToolSpec, webSearch: ServerWebSearch | undefined): Anthropic.ToolUnion {
  if (webSearch && tool.name === "web_search") {
    const server: Anthropic.WebSearchTool20250305 = { name: "web_search", ...webSearch };
    return server;
  }
  return {
    name: tool.name,
    description: tool.description,
    // zod's JSON Schema for an object input always has type "object".
    input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
  };
}
