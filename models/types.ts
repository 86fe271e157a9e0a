/**
 * The one model interface every executor talks to. Shapes follow the Anthropic
 * Messages API closely (content blocks, tool_use / tool_result) so the log stores
 * exactly what crossed the wire, but nothing here depends on the SDK.
 */

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/**
 * A search Anthropic ran on its own servers within the call (ARIADNE_SEARCH=anthropic):
 * only web_search is ever offered as a server tool, so only it is read back.
 */
export interface ServerToolUseBlock {
  type: "server_tool_use";
  id: string;
  name: "web_search";
  input: unknown;
}

/** One hit of a server-side search; `encrypted_content` is opaque and only goes back to the API. */
export interface WebSearchResult {
  type: "web_search_result";
  url: string;
  title: string;
  encrypted_content: string;
  page_age: string | null;
}

/** A server-side search failed (max_uses_exceeded, too_many_requests, unavailable, ...): the call itself succeeded. */
export interface WebSearchError {
  type: "web_search_tool_result_error";
  error_code: string;
}

/** What a server-side search returned, in the assistant's own message (no tool_result of ours answers it). */
export interface WebSearchToolResultBlock {
  type: "web_search_tool_result";
  tool_use_id: string;
  content: WebSearchResult[] | WebSearchError;
}

export type AssistantBlock = TextBlock | ToolUseBlock | ServerToolUseBlock | WebSearchToolResultBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export type Message =
  | { role: "user"; content: string | UserBlock[] }
  | { role: "assistant"; content: AssistantBlock[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool input (from the tool's zod schema). */
  input_schema: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
}

export interface Usage {
  /** Input tokens neither written to nor read from the prompt cache (Anthropic's input_tokens). */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens written to the prompt cache by this call (cache_creation_input_tokens); absent when not reported. */
  cacheCreationInputTokens?: number;
  /** Input tokens read from the prompt cache (cache_read_input_tokens); absent when not reported. */
  cacheReadInputTokens?: number;
  /** Searches Anthropic ran and bills per search (usage.server_tool_use.web_search_requests); absent when none were. */
  webSearchRequests?: number;
}

/**
 * Anthropic's server-side web search, offered in place of the client web_search
 * tool (ARIADNE_SEARCH=anthropic); options as the API names them.
 */
export interface ServerWebSearch {
  /** The tool version sent (the installed SDK's `WebSearchTool20250305`). */
  type: "web_search_20250305";
  /** Searches one model call may run; past it a search answers max_uses_exceeded. */
  max_uses: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
  user_location?: { type: "approximate"; city?: string; region?: string; country?: string; timezone?: string };
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "pause_turn";

export interface ModelResponse {
  content: AssistantBlock[];
  stopReason: StopReason;
  usage: Usage;
  /** The model that actually answered, as reported by the provider. */
  model: string;
  /** The provider's id of this response (Anthropic's message id), so an audit can name it; absent for scripted replies. */
  responseId?: string;
  /** True when the response came from a ScriptedModel, never from a real model. */
  scripted: boolean;
  /** Characters the event log cannot hold, replaced in `content` (see core/sanitizeText.ts); absent when none were. */
  sanitized?: string[];
}

/**
 * A piece of a reply as it streams: text of a text block, or a fragment of a
 * tool call's input JSON (the `answer` tool's input is Main's answer). Not
 * recorded: the `turn` event holds the whole reply. A retried call streams
 * again from its start.
 */
export type ModelDelta = { type: "text"; text: string } | { type: "tool_input"; tool: string; partialJson: string };

export interface CallOptions {
  signal?: AbortSignal;
  /** Called with each piece of the reply as it arrives (a scripted model: each block as one piece). */
  onDelta?: (delta: ModelDelta) => void;
  /**
   * Epoch ms by which the call must be over, retries and the waits between them
   * included: past it the call fails with kind "deadline", so time spent waiting
   * on the model counts against the caller's wall-clock budget.
   */
  deadline?: number;
  /** Server-side searches this call may run, when fewer than the model's own max_uses (what is left of the run's search budget). */
  maxSearches?: number;
}

export interface Model {
  /** Provider label used in logs and events, e.g. "anthropic" or "scripted". */
  readonly provider: string;
  readonly scripted: boolean;
  /** Searches one call may run on the provider's servers when a request offers web_search (ARIADNE_SEARCH=anthropic); absent: web_search is the host's own tool. */
  readonly serverSearchesPerCall?: number;
  /** The server tool it sends in place of a request's web_search (ARIADNE_SEARCH=anthropic), recorded with what an executor is offered at admission. */
  readonly webSearch?: ServerWebSearch;
  complete(request: ModelRequest, options?: CallOptions): Promise<ModelResponse>;
}
