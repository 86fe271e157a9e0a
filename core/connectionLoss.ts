import { AriadneError } from "./errors.ts";

/**
 * The one place that says what a lost database connection is, and how a call
 * rides one out. Used at the database's edge only (the hosted run's store, the
 * budget ledger, reminder keys, the blob table, leases): a tool's or a model's
 * network error is the tool's or the model's outcome, never classified here.
 */

/**
 * SQLSTATEs of a connection the server ended or would not accept: class 08
 * (connection exception, all of it), 57P01 admin_shutdown ("terminating
 * connection due to administrator command": a fast or smart stop), 57P02
 * crash_shutdown (another backend crashed, or an immediate stop), 57P03
 * cannot_connect_now ("the database system is starting up / shutting down / in
 * recovery mode"); and 55000 only as `database "…" is not currently accepting
 * connections`, a connection refused for now.
 */
const SQLSTATES = new Set(["57P01", "57P02", "57P03"]);
/** Socket errors of a connection that broke or was never made. */
const SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "EHOSTUNREACH", "ENETUNREACH"]);
/**
 * What the pg driver says without a code: the socket closed under a query
 * ("Connection terminated unexpectedly", "… due to connection timeout"), a
 * client already broken ("… is not queryable"), the pool's connect timeout.
 */
const DRIVER_MESSAGES = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/** A lost or refused database connection (the server restarting, a terminated backend), as opposed to an answer. */
export function isConnectionError(e: unknown, depth = 0): boolean {
  if (e === null || typeof e !== "object" || depth > 5) return false;
  if (e instanceof DatabaseUnavailableError) return true;
  const err = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const code = typeof err.code === "string" ? err.code : "";
  if (code && (SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SOCKET_CODES.has(code))) return true;
  // 55000 is mostly an answer, but at connect time it is the database refusing connections for now
  // (ALLOW_CONNECTIONS false while an operator works on it): a connection not made, like 57P03.
  if (code === "55000" && typeof err.message === "string" && /is not currently accepting connections/.test(err.message)) return true;
  // A server error with any other SQLSTATE is an answer (a constraint, a fence, a syntax error).
  if (/^[0-9A-Z]{5}$/.test(code)) return false;
  if (typeof err.message === "string" && DRIVER_MESSAGES.test(err.message)) return true;
  // Node reports a failed dual-stack connect as an AggregateError of the attempts.
  if (Array.isArray(err.errors) && err.errors.length > 0 && err.errors.every((x) => isConnectionError(x, depth + 1))) return true;
  return err.cause !== undefined && err.cause !== e && isConnectionError(err.cause, depth + 1);
}

/**
 * The database stayed unreachable for as long as a call was willing to wait.
 * Not a failure of whatever was being done: a hosted run gives its lease back
 * (another worker, or this one, takes it when the database answers), and no
 * executor records `failed` for it.
 */
export class DatabaseUnavailableError extends AriadneError {
  constructor(
    readonly what: string,
    readonly waitedMs: number,
    options: { cause: unknown },
  ) {
    super("DATABASE_UNAVAILABLE", 503, `the database was unreachable for ${Math.round(waitedMs / 1000)} s (${what}): ${messageOf(options.cause)}`, options);
  }
}

export function isDatabaseUnavailable(e: unknown): e is DatabaseUnavailableError {
  return e instanceof DatabaseUnavailableError || (e as { code?: unknown })?.code === "DATABASE_UNAVAILABLE";
}

export interface RetryPolicy {
  /** Give up (DatabaseUnavailableError) once the next wait would pass this; default 60 s. */
  maxWaitMs?: number;
  /** First wait, doubled each time up to maxDelayMs; default 100 ms and 3 s. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  onRetry?: (what: string, e: unknown, attempt: number) => void;
}

/** How long a command waits for an unreachable database by default (ARIADNE_DATABASE_WAIT_MS). */
export const DEFAULT_DATABASE_WAIT_MS = 60_000;

export const DEFAULT_RETRY: Required<Omit<RetryPolicy, "onRetry">> = { maxWaitMs: 60_000, firstDelayMs: 100, maxDelayMs: 3_000 };

/**
 * Calls `call` until it returns or fails for another reason than a lost
 * connection, waiting with backoff between attempts, bounded by maxWaitMs;
 * then throws DatabaseUnavailableError (with the last error as its cause).
 * Only for calls that may run again after a lost reply: reads, idempotent
 * writes, or writes whose double is undone later (see the callers).
 */
export async function retryOnConnectionLoss<T>(what: string, call: () => Promise<T>, policy: RetryPolicy = {}): Promise<T> {
  const { maxWaitMs, firstDelayMs, maxDelayMs } = { ...DEFAULT_RETRY, ...policy };
  const started = Date.now();
  for (let attempt = 1, delay = firstDelayMs; ; attempt++, delay = Math.min(delay * 2, maxDelayMs)) {
    try {
      return await call();
    } catch (e) {
      if (isDatabaseUnavailable(e)) throw e;
      if (!isConnectionError(e)) throw e;
      if (Date.now() + delay - started > maxWaitMs) throw new DatabaseUnavailableError(what, Date.now() - started, { cause: e });
      policy.onRetry?.(what, e, attempt);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

function messageOf(e: unknown): string {
  const err = e as { message?: string; code?: string };
  const text = err?.message || String(e);
  return err?.code && !text.includes(err.code) ? `${text} (${err.code})` : text;
}
