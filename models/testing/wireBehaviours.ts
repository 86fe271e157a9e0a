import type { WireBlock, WireReply } from "./wireEvents.ts";

/** What the wire server does with one request. */
export type WireBehaviour =
  | { kind: "reply"; reply: WireReply }
  /** A JSON error body with this status, as Anthropic answers before any streaming. */
  | {
      kind: "httpError";
      status: number;
      errorType: string;
      message: string;
      headers?: Record<string, string>;
      /** Sent as `error.details`, e.g. `{ error_code: "enforced_spend_limit_reached" }`. */
      details?: Record<string, unknown>;
    }
  /** Sends the first `afterEvents` events, then destroys the socket. */
  | { kind: "cutStream"; reply: WireReply; afterEvents: number }
  /** Sends every event but message_stop, then ends the response cleanly. */
  | { kind: "noMessageStop"; reply: WireReply }
  /** Sends the first `afterEvents` events, then an `event: error`, then ends. */
  | { kind: "errorEvent"; reply: WireReply; afterEvents: number; errorType: string; message: string }
  /** Sends the first `afterEvents` events, then holds the connection open without a byte more. */
  | { kind: "stall"; reply: WireReply; afterEvents: number };

const DEFAULT_REPLY: WireReply = { content: [{ type: "text", text: "partial answer that never finishes" }] };

const toReply = (content: WireBlock[] | string): WireReply => ({
  content: typeof content === "string" ? [{ type: "text", text: content }] : content,
});

export const reply = (content: WireBlock[] | string, options: Omit<WireReply, "content"> = {}): WireBehaviour => ({
  kind: "reply",
  reply: { ...toReply(content), ...options },
});

export const httpError = (
  status: number,
  errorType: string,
  message: string,
  options: { headers?: Record<string, string>; details?: Record<string, unknown> } = {},
): WireBehaviour => ({ kind: "httpError", status, errorType, message, ...options });

export const overloaded = (): WireBehaviour => httpError(529, "overloaded_error", "Overloaded");

/** `retryAfterSeconds` may be fractional; the SDK and AnthropicModel both parse it as a float. */
export const rateLimited = (retryAfterSeconds = 0): WireBehaviour =>
  httpError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", {
    headers: { "retry-after": String(retryAfterSeconds) },
  });

export const cutStream = (afterEvents: number, content: WireBlock[] | string = DEFAULT_REPLY.content): WireBehaviour => ({
  kind: "cutStream",
  reply: toReply(content),
  afterEvents,
});

export const noMessageStop = (content: WireBlock[] | string = DEFAULT_REPLY.content): WireBehaviour => ({
  kind: "noMessageStop",
  reply: toReply(content),
});

export const errorEvent = (
  errorType = "overloaded_error",
  message = "Overloaded",
  afterEvents = 1,
): WireBehaviour => ({ kind: "errorEvent", reply: DEFAULT_REPLY, afterEvents, errorType, message });

export const stall = (afterEvents: number, content: WireBlock[] | string = DEFAULT_REPLY.content): WireBehaviour => ({
  kind: "stall",
  reply: toReply(content),
  afterEvents,
});

export const times = (n: number, behaviour: WireBehaviour): WireBehaviour[] => Array.from({ length: n }, () => behaviour);
