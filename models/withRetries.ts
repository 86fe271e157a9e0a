import { deadlineError, ModelCallError } from "./modelCallError.ts";
import { sleep } from "./sleep.ts";

export interface RetryPolicy {
  /** Retries after the first attempt; 0 means one attempt only. */
  maxRetries: number;
  /** First backoff delay; doubles each retry. */
  initialDelayMs: number;
  /** Upper bound for a backoff delay and for a provider's retry-after. */
  maxDelayMs: number;
  /** Jitter source in [0, 1); passed in so tests can pin it. */
  random: () => number;
}

/**
 * Retried here: failures before the answer was under way (overload, rate
 * limit, transient 5xx or connection failure). A stream that broke mid-message
 * is surfaced instead, so the caller sees and records the lost, billed turn;
 * so is one that had started server-side searches.
 */
export function isAutoRetried(e: ModelCallError): boolean {
  return e.retryable && !e.searchesLost && (e.kind === "overloaded" || e.kind === "rate_limited" || e.kind === "api_error");
}

/** Exponential backoff with jitter in [delay/2, delay], so concurrent callers spread out. */
export function backoffDelayMs(retry: number, policy: RetryPolicy): number {
  const delay = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return delay / 2 + (policy.random() * delay) / 2;
}

/**
 * Runs `attempt()` until it succeeds, fails with something not retried here,
 * or the retries run out. The last error is rethrown with its attempt count.
 * A wait that would end past `deadline` (epoch ms) is not begun: the call fails
 * with kind "deadline" at once, the last error as its cause.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  deadline?: number,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof ModelCallError)) throw e;
      e.attempts = retry + 1;
      if (!isAutoRetried(e) || retry >= policy.maxRetries) throw e;
      const wait = Math.min(e.retryAfterMs ?? backoffDelayMs(retry, policy), policy.maxDelayMs);
      if (deadline !== undefined && Date.now() + wait >= deadline) {
        const late = deadlineError(deadline, e);
        late.attempts = retry + 1;
        throw late;
      }
      await sleep(wait, signal).catch((aborted: ModelCallError) => {
        aborted.attempts = retry + 1;
        throw aborted;
      });
    }
  }
}
