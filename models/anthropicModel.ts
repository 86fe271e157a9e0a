import process from "node:process";
import type Anthropic from "@anthropic-ai/sdk";
import { ConfigError } from "../core/errors.ts";
import { deadlineError, type ModelCallError, withLostSearches } from "./modelCallError.ts";
import { fromAnthropicMessage } from "./fromAnthropicMessage.ts";
import { idleTimeoutFetch } from "./idleTimeoutFetch.ts";
import { toAnthropicParams, type AnthropicParams } from "./toAnthropicParams.ts";
import { loadAnthropicSdk, toModelCallError } from "./toModelCallError.ts";
import type { CallOptions, Model, ModelRequest, ModelResponse, ServerWebSearch } from "./types.ts";
import { withRetries, type RetryPolicy } from "./withRetries.ts";

export interface AnthropicModelConfig {
  /** Falls back to ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Falls back to ANTHROPIC_BASE_URL, then the SDK's default. */
  baseURL?: string;
  /** Retries of overload, rate limit and transient failures; default 4. */
  maxRetries?: number;
  /** First backoff delay, doubled per retry; default 500. */
  initialRetryDelayMs?: number;
  /** Cap on one backoff delay and on a server's retry-after; default 30 s. */
  maxRetryDelayMs?: number;
  /** Wait for response headers; default 10 min (the SDK's). */
  timeoutMs?: number;
  /** Silence on an open stream that counts as a dead connection; default DEFAULT_IDLE_TIMEOUT_MS (60 s). */
  idleTimeoutMs?: number;
  /** Used when a request names no model. */
  defaultModel?: string;
  /** Jitter source; pass a fixed one for reproducible delays. */
  random?: () => number;
  /** ARIADNE_SEARCH=anthropic: a request's web_search goes out as Anthropic's server-side search tool. */
  webSearch?: ServerWebSearch;
}

/**
 * Anthropic sends an SSE `ping` on a quiet stream every 15 to 30 s (reported in
 * anthropics/anthropic-sdk-typescript#998), and the idle guard counts any byte,
 * pings included, as life. 60 s is two missed pings or more: a live stream that
 * is thinking never trips it, a dead one fails in a minute rather than two.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/**
 * Model on the Anthropic Messages API. Every call streams, so a broken,
 * truncated or silent stream fails fast with a ModelCallError instead of
 * hanging. Retries are ours, not the SDK's: its backoff cannot be tuned and it
 * does not retry an overloaded error that arrives inside a stream.
 */
export class AnthropicModel implements Model {
  readonly provider = "anthropic";
  readonly scripted = false;
  /** The SDK is imported when a model is made (a process that only reads the log never makes one), not before. */
  private readonly client: Promise<Anthropic>;
  private readonly retry: RetryPolicy;
  private readonly defaultModel?: string;
  readonly webSearch?: ServerWebSearch;
  readonly serverSearchesPerCall?: number;
  /** Silence on an open stream after which it counts as dead. */
  readonly idleTimeoutMs: number;

  constructor(config: AnthropicModelConfig = {}) {
    // The key comes from the configuration (cli/config.ts reads ANTHROPIC_API_KEY); never from the environment here.
    const apiKey = config.apiKey;
    if (!apiKey) throw new ConfigError("no Anthropic API key: pass apiKey (ANTHROPIC_API_KEY)");
    this.idleTimeoutMs = config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    if (!(this.idleTimeoutMs > 0)) throw new ConfigError(`idleTimeoutMs must be a positive number of milliseconds, got ${config.idleTimeoutMs}`);
    const clientOptions = {
      apiKey,
      baseURL: config.baseURL || undefined,
      maxRetries: 0,
      timeout: config.timeoutMs ?? 10 * 60_000,
      fetch: idleTimeoutFetch(this.idleTimeoutMs),
    };
    this.client = loadAnthropicSdk().then((sdk) => new sdk.default(clientOptions));
    // Awaited by the first call, which reports a failed import; until then it must not count as unhandled.
    this.client.catch(() => {});
    this.retry = {
      maxRetries: config.maxRetries ?? 4,
      initialDelayMs: config.initialRetryDelayMs ?? 500,
      maxDelayMs: config.maxRetryDelayMs ?? 30_000,
      random: config.random ?? Math.random,
    };
    this.defaultModel = config.defaultModel;
    this.webSearch = config.webSearch;
    this.serverSearchesPerCall = config.webSearch?.max_uses;
  }

  async complete(request: ModelRequest, options: CallOptions = {}): Promise<ModelResponse> {
    const model = request.model || this.defaultModel;
    if (!model) throw new ConfigError("the request names no model and AnthropicModel has no defaultModel");
    // The run's search budget may leave fewer searches than max_uses for this call.
    const webSearch = this.webSearch && options.maxSearches !== undefined ? { ...this.webSearch, max_uses: Math.min(this.webSearch.max_uses, options.maxSearches) } : this.webSearch;
    const params = toAnthropicParams(request, model, webSearch);
    const { deadline } = options;
    if (deadline === undefined) return withRetries(() => this.streamOnce(params, options.signal, options.onDelta), this.retry, options.signal);
    if (Date.now() >= deadline) throw deadlineError(deadline);
    // One signal for the caller's abort and the deadline, so a stream in flight stops at the deadline too.
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(deadlineError(deadline)), deadline - Date.now());
    const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
    try {
      return await withRetries(() => this.streamOnce(params, signal, options.onDelta), this.retry, signal, deadline);
    } catch (e) {
      // The caller's own abort, a failure before the deadline, or withRetries' own deadline error.
      if (!timer.signal.aborted || options.signal?.aborted || (e as ModelCallError).kind === "deadline") throw e;
      const late = deadlineError(deadline);
      late.attempts = (e as ModelCallError).attempts;
      throw late;
    } finally {
      clearTimeout(handle);
    }
  }

  private async streamOnce(params: AnthropicParams, signal?: AbortSignal, onDelta?: CallOptions["onDelta"]): Promise<ModelResponse> {
    const client = await this.client;
    let searches = 0;
    try {
      const stream = client.messages.stream(params, { signal });
      if (this.webSearch) {
        stream.on("streamEvent", (event) => {
          if (event.type === "content_block_start" && event.content_block.type === "server_tool_use") searches++;
        });
      }
      if (onDelta) {
        // The SDK's own stream events: text as it is written, a tool call's input JSON as it is written (named by its block).
        const tools = new Map<number, string>();
        stream.on("streamEvent", (event) => {
          if (event.type === "content_block_start" && event.content_block.type === "tool_use") tools.set(event.index, event.content_block.name);
          else if (event.type === "content_block_delta") {
            if (event.delta.type === "text_delta") onDelta({ type: "text", text: event.delta.text });
            else if (event.delta.type === "input_json_delta" && event.delta.partial_json) onDelta({ type: "tool_input", tool: tools.get(event.index) ?? "", partialJson: event.delta.partial_json });
          }
        });
      }
      const message = await stream.finalMessage();
      return fromAnthropicMessage(message);
    } catch (e) {
      throw withLostSearches(await toModelCallError(e, signal), searches);
    }
  }
}
