import process from "node:process";
import Anthropic from "@anthropic-ai/sdk";
import { ConfigError } from "../core/errors.ts";
import { fromAnthropicMessage } from "./fromAnthropicMessage.ts";
import { idleTimeoutFetch } from "./idleTimeoutFetch.ts";
import { toAnthropicParams, type AnthropicParams } from "./toAnthropicParams.ts";
import { toModelCallError } from "./toModelCallError.ts";
import type { CallOptions, Model, ModelRequest, ModelResponse } from "./types.ts";
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
  /** Silence on an open stream that counts as a dead connection; default 2 min. */
  idleTimeoutMs?: number;
  /** Used when a request names no model. */
  defaultModel?: string;
  /** Jitter source; pass a fixed one for reproducible delays. */
  random?: () => number;
}

/**
 * Model on the Anthropic Messages API. Every call streams, so a broken,
 * truncated or silent stream fails fast with a ModelCallError instead of
 * hanging. Retries are ours, not the SDK's: its backoff cannot be tuned and it
 * does not retry an overloaded error that arrives inside a stream.
 */
export class AnthropicModel implements Model {
  readonly provider = "anthropic";
  readonly scripted = false;
  private readonly client: Anthropic;
  private readonly retry: RetryPolicy;
  private readonly defaultModel?: string;

  constructor(config: AnthropicModelConfig = {}) {
    const apiKey = config.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new ConfigError("no Anthropic API key: pass apiKey or set ANTHROPIC_API_KEY");
    this.client = new Anthropic({
      apiKey,
      baseURL: config.baseURL || process.env.ANTHROPIC_BASE_URL || undefined,
      maxRetries: 0,
      timeout: config.timeoutMs ?? 10 * 60_000,
      fetch: idleTimeoutFetch(config.idleTimeoutMs ?? 120_000),
    });
    this.retry = {
      maxRetries: config.maxRetries ?? 4,
      initialDelayMs: config.initialRetryDelayMs ?? 500,
      maxDelayMs: config.maxRetryDelayMs ?? 30_000,
      random: config.random ?? Math.random,
    };
    this.defaultModel = config.defaultModel;
  }

  async complete(request: ModelRequest, options: CallOptions = {}): Promise<ModelResponse> {
    const model = request.model || this.defaultModel;
    if (!model) throw new ConfigError("the request names no model and AnthropicModel has no defaultModel");
    const params = toAnthropicParams(request, model);
    return withRetries(() => this.streamOnce(params, options.signal), this.retry, options.signal);
  }

  private async streamOnce(params: AnthropicParams, signal?: AbortSignal): Promise<ModelResponse> {
    try {
      const message = await this.client.messages.stream(params, { signal }).finalMessage();
      return fromAnthropicMessage(message);
    } catch (e) {
      throw toModelCallError(e, signal);
    }
  }
}
