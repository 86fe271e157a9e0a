import { AriadneError } from "../core/errors.ts";

/**
 * Why a model call failed. The runtime branches on `kind` and `retryable`,
 * never on provider error classes or message wording.
 */
export type ModelCallErrorKind =
  | "overloaded"
  | "rate_limited"
  | "stream_cut"
  | "incomplete_stream"
  | "api_error"
  | "aborted"
  /** The caller's deadline passed (CallOptions.deadline); not retryable, the budget is spent. */
  | "deadline";

export interface ModelCallErrorInit {
  kind: ModelCallErrorKind;
  retryable: boolean;
  message: string;
  /** HTTP status the provider answered with, when there was one. */
  providerStatus?: number;
  /** The provider's request id, to quote when reporting a problem upstream. */
  requestId?: string;
  /** How long the provider asked us to wait before trying again. */
  retryAfterMs?: number;
  /** Server-side web searches the failed reply had started: billed, their results lost with it (never retried unseen). */
  searchesLost?: number;
  cause?: unknown;
}

/** HTTP status our own layer reports for each kind. */
const STATUS: Record<ModelCallErrorKind, number> = {
  overloaded: 503,
  rate_limited: 429,
  stream_cut: 502,
  incomplete_stream: 502,
  api_error: 502,
  aborted: 499,
  deadline: 504,
};

export class ModelCallError extends AriadneError {
  readonly kind: ModelCallErrorKind;
  readonly retryable: boolean;
  readonly providerStatus?: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly searchesLost?: number;
  /** Attempts made, retries included; the retry loop sets it on the error it gives up with. */
  attempts = 1;

  constructor(init: ModelCallErrorInit) {
    super("MODEL_CALL", STATUS[init.kind], init.message, { cause: init.cause });
    this.kind = init.kind;
    this.retryable = init.retryable;
    this.providerStatus = init.providerStatus;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.searchesLost = init.searchesLost;
  }
}

export const isModelCallError = (e: unknown): e is ModelCallError => e instanceof ModelCallError;

export const abortedError = (cause?: unknown): ModelCallError =>
  new ModelCallError({ kind: "aborted", retryable: false, message: "model call aborted by the caller", cause });

/** The call ran out of the time its caller gave it; `cause` is the last failure, when there was one. */
export const deadlineError = (deadline: number, cause?: unknown): ModelCallError =>
  new ModelCallError({
    kind: "deadline",
    retryable: false,
    message:
      `model call passed its deadline (${new Date(deadline).toISOString()})` +
      (cause instanceof Error ? ` after: ${cause.message}` : ""),
    cause,
  });

/**
 * A reply that broke after Anthropic had started web searches for it: the
 * searches ran (and are billed) but their results are lost. Said in the error,
 * which the turn_failed event records, and never retried inside the call, so a
 * search whose outcome is unknown is not repeated unseen.
 */
export function withLostSearches(e: ModelCallError, searches: number): ModelCallError {
  if (searches === 0 || e.kind === "aborted" || e.kind === "deadline") return e;
  return new ModelCallError({
    kind: e.kind,
    retryable: e.retryable,
    message: `${e.message} (the lost reply had started ${searches} web search${searches === 1 ? "" : "es"} on Anthropic's servers: billed, results lost; the next turn may search again)`,
    providerStatus: e.providerStatus,
    requestId: e.requestId,
    retryAfterMs: e.retryAfterMs,
    searchesLost: searches,
    cause: e,
  });
}
