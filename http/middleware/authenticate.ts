import type { MiddlewareHandler } from "hono";
import { type Authenticator, tokenOf } from "../auth/authenticate.ts";
import { ANONYMOUS } from "../auth/principal.ts";
import type { AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { clientAddress } from "./clientAddress.ts";
import { limitReached, rateLimitFields } from "./limitAnswer.ts";
import type { RateLimiter } from "./rateLimit.ts";

/** Characters of a presented key that name its failure bucket: "ariadne_" and 8 of the secret, too few to say anything about the rest. */
const KEY_PREFIX_CHARS = 16;

/**
 * Sets the caller's principal from its bearer key (or the anonymous admin with
 * auth off). Failed authentications are counted per client address and per
 * presented key prefix; once either has spent them, failures are answered 429
 * instead of 401, and a request with no key at all is refused before any
 * lookup. A key that verifies is never refused here: one client's failures
 * (behind a shared proxy address, or guessing at a prefix) cannot lock out
 * another's valid key. Keys are 256-bit secrets, so the limit slows guessing
 * that cannot succeed anyway; what it bounds is the noise.
 */
export function authentication(options: { auth: "keys" | "none"; authenticate: Authenticator; failures: RateLimiter; trustedProxies?: readonly string[] }): MiddlewareHandler<AppEnv> {
  const { burst, perSecond } = options.failures.options;
  return async (c, next) => {
    if (options.auth === "none") {
      c.set("principal", ANONYMOUS);
      return next();
    }
    const authorization = c.req.header("authorization");
    const token = tokenOf(authorization);
    const buckets = [`address:${clientAddress(c, options.trustedProxies)}`, ...(token ? [`prefix:${token.slice(0, KEY_PREFIX_CHARS)}`] : [])];
    const blocked = buckets.map((b) => options.failures.peek(b)).find((a) => !a.ok);
    const refuse = (retryAfterSeconds: number) =>
      limitReached(
        `too many failed authentications from this address or for this key prefix (${burst}, then one every ${Math.round(1 / perSecond)} s); retry after ${retryAfterSeconds} s`,
        retryAfterSeconds,
        rateLimitFields("failed-auth", burst, 0, retryAfterSeconds, Math.ceil(burst / perSecond)),
      );
    // No key: nothing could verify, so no lookup is spent on it.
    if (blocked && !blocked.ok && !token) throw refuse(blocked.retryAfterSeconds);
    try {
      c.set("principal", await options.authenticate(authorization));
    } catch (e) {
      if (e instanceof HttpProblem && e.status === 401) {
        for (const b of buckets) options.failures.take(b);
        if (blocked && !blocked.ok) throw refuse(blocked.retryAfterSeconds);
      }
      throw e;
    }
    await next();
  };
}
