import { AnthropicModel, type AnthropicModelConfig } from "../../models/anthropicModel.ts";
import type { ModelRequest } from "../../models/types.ts";
import { startAnthropicWireServer, type AnthropicWireServer } from "../../models/testing/anthropicWireServer.ts";
import type { WireBehaviour } from "../../models/testing/wireBehaviours.ts";

export const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "claude-test-1",
  system: "You are a careful researcher.",
  messages: [{ role: "user", content: "What is the capital of France?" }],
  tools: [],
  maxTokens: 256,
  ...overrides,
});

/** AnthropicModel against a wire server, with backoff in single milliseconds. */
export const modelAt = (url: string, config: AnthropicModelConfig = {}) =>
  new AnthropicModel({
    apiKey: "test-key",
    baseURL: url,
    maxRetries: 3,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 20,
    idleTimeoutMs: 2_000,
    ...config,
  });

/** Settles like `promise`, or rejects once `ms` pass: a hang fails the test instead of stalling the run. */
export function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The rejection of `promise`; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection, got a value");
}

/** Runs `fn` against a fresh wire server holding `behaviours`, and always closes it. */
export async function withWireServer<T>(
  behaviours: WireBehaviour[],
  fn: (server: AnthropicWireServer) => Promise<T>,
): Promise<T> {
  const server = await startAnthropicWireServer({ behaviours });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}
