import { type Clock, systemClock } from "../core/clock.ts";

export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  perSecond: number;
  /** Requests a key may make at once before the sustained rate applies. */
  burst: number;
  clock?: Clock;
}

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A token bucket per caller (API key id, or the peer when auth is off); in memory, per process. */
export function createRateLimiter(options: RateLimitOptions): { take(caller: string): Admission } {
  const clock = options.clock ?? systemClock;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(caller) {
      const now = clock.now().getTime();
      const b = buckets.get(caller) ?? { tokens: options.burst, at: now };
      b.tokens = Math.min(options.burst, b.tokens + ((now - b.at) / 1000) * options.perSecond);
      b.at = now;
      if (buckets.size > 10_000) buckets.clear();
      buckets.set(caller, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / options.perSecond)) };
    },
  };
}
