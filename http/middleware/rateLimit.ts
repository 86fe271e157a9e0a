import type { MiddlewareHandler } from "hono";
import { type Clock, systemClock } from "../../core/clock.ts";
import { lruMap } from "../auth/lru.ts";
import type { AppEnv } from "../deps.ts";
import { limitReached, rateLimitFields } from "./limitAnswer.ts";

export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  perSecond: number;
  /** Requests a key may make at once before the sustained rate applies. */
  burst: number;
  clock?: Clock;
  /** Callers remembered at most (least recently seen forgotten first). Default 100,000. */
  callers?: number;
}

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(caller: string): Admission;
  /** Whether the caller could take one now, without taking it. */
  peek(caller: string): Admission;
  /** For the RateLimit header: whole requests left now, and seconds until the bucket is full again. */
  remaining(caller: string): { left: number; fullInSeconds: number };
  readonly options: RateLimitOptions;
}

/** A token bucket per caller (API key id, a client address); in memory, per process. */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const clock = options.clock ?? systemClock;
  // Bounded, least recently seen forgotten first: a flood of new callers cannot reset a busy one's bucket.
  const buckets = lruMap<string, { tokens: number; at: number }>(options.callers ?? 100_000);
  const bucket = (caller: string) => {
    const now = clock.now().getTime();
    const b = buckets.get(caller) ?? { tokens: options.burst, at: now };
    b.tokens = Math.min(options.burst, b.tokens + ((now - b.at) / 1000) * options.perSecond);
    b.at = now;
    buckets.set(caller, b);
    return b;
  };
  const refused = (tokens: number): Admission => ({ ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / options.perSecond)) });
  return {
    options,
    take(caller) {
      const b = bucket(caller);
      if (b.tokens < 1) return refused(b.tokens);
      b.tokens -= 1;
      return { ok: true };
    },
    peek(caller) {
      const b = bucket(caller);
      return b.tokens >= 1 ? { ok: true } : refused(b.tokens);
    },
    remaining(caller) {
      const b = bucket(caller);
      return { left: Math.floor(b.tokens), fullInSeconds: Math.ceil((options.burst - b.tokens) / options.perSecond) };
    },
  };
}

/** The per-key token bucket, after authentication: every answer says what is left. */
export function rateLimitPerKey(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  const { burst, perSecond } = limiter.options;
  const window = Math.ceil(burst / perSecond);
  return async (c, next) => {
    const caller = c.get("principal").keyId ?? "anonymous";
    const admission = limiter.take(caller);
    const { left, fullInSeconds } = limiter.remaining(caller);
    const fields = rateLimitFields("key", burst, left, fullInSeconds, window);
    if (!admission.ok) {
      throw limitReached(`too many requests for this key (${burst} at once, ${perSecond}/s sustained); retry after ${admission.retryAfterSeconds} s`, admission.retryAfterSeconds, fields);
    }
    // Set before the response exists: setting a header afterwards makes Hono copy the response.
    for (const [name, value] of Object.entries(fields)) c.header(name, value);
    await next();
  };
}
