import type { APIError } from "@anthropic-ai/sdk";
import { abortedError, ModelCallError } from "./modelCallError.ts";
import { StreamStalledError } from "./idleTimeoutFetch.ts";

/**
 * Turns whatever one streamed SDK call threw into a ModelCallError. The SDK
 * reports a broken body as a bare AnthropicError wrapping the network error,
 * and a body that ended cleanly before message_stop as a bare AnthropicError
 * with no cause; those two are told apart here.
 */
/** The SDK, imported once, when a model is made (AnthropicModel) or an error is told apart: a few hundred modules to load. */
let sdk: Promise<typeof import("@anthropic-ai/sdk")> | undefined;
export const loadAnthropicSdk = () => (sdk ??= import("@anthropic-ai/sdk"));

export async function toModelCallError(e: unknown, signal?: AbortSignal): Promise<ModelCallError> {
  if (e instanceof ModelCallError) return e;
  const { AnthropicError, APIConnectionError, APIError, APIUserAbortError } = await loadAnthropicSdk();
  if (signal?.aborted || e instanceof APIUserAbortError) return abortedError(e);
  if (e instanceof APIConnectionError) {
    // Before any response: the SDK's timeout or a refused / reset connection.
    return new ModelCallError({ kind: "api_error", retryable: true, message: `model API unreachable: ${e.message}`, cause: e });
  }
  if (e instanceof APIError) return fromApiError(e);
  if (e instanceof AnthropicError && e.cause !== undefined) {
    const stalled = e.cause instanceof StreamStalledError;
    return new ModelCallError({
      kind: "stream_cut",
      retryable: true,
      message: `the model's response stream ${stalled ? "stalled" : "broke"} mid-message: ${describe(e.cause)}`,
      cause: e,
    });
  }
  if (e instanceof AnthropicError) {
    return new ModelCallError({
      kind: "incomplete_stream",
      retryable: true,
      message: `the model's response stream ended without message_stop (${e.message})`,
      cause: e,
    });
  }
  return new ModelCallError({ kind: "api_error", retryable: false, message: `model call failed: ${describe(e)}`, cause: e });
}

/** An HTTP error status, or an `event: error` inside a stream (no status, `type` from its body). */
function fromApiError(e: APIError): ModelCallError {
  const status = e.status;
  const kind =
    status === 529 || e.type === "overloaded_error" ? "overloaded"
    : status === 429 || e.type === "rate_limit_error" ? "rate_limited"
    : "api_error";
  const where = status === undefined ? "stream error event" : `HTTP ${status}`;
  return new ModelCallError({
    kind,
    retryable: isRetryable(e, kind),
    message: `model API ${kind === "api_error" ? "error" : kind.replace("_", " ")} (${where}): ${e.apiMessage ?? e.message}`,
    providerStatus: status,
    requestId: e.requestID ?? undefined,
    retryAfterMs: retryAfterMs(e.headers),
    cause: e,
  });
}

function isRetryable(e: APIError, kind: ModelCallError["kind"]): boolean {
  // The server's explicit word wins, as in the SDK's own policy.
  const header = e.headers?.get("x-should-retry");
  if (header === "true" || header === "false") return header === "true";
  // A spent budget is a 429 too, but waiting will not refill it.
  if (kind === "rate_limited") return !e.errorCode?.includes("spend_limit");
  if (kind === "overloaded") return true;
  const status = e.status;
  if (status === undefined) return e.type === "api_error" || e.type === "timeout_error";
  return status === 408 || status === 409 || status >= 500;
}

/** `retry-after-ms` (non-standard, precise) or `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (ms >= 0) return ms;
  const raw = headers?.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message;
}
