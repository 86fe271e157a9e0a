import type { MiddlewareHandler } from "hono";
import type { Authenticator } from "../auth/authenticate.ts";
import { ANONYMOUS } from "../auth/principal.ts";
import type { AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { clientAddress } from "./clientAddress.ts";
import { limitReached, rateLimitFields } from "./limitAnswer.ts";
import type { RateLimiter } from "./rateLimit.ts";

/**
 * Sets the caller's principal from its bearer key (or the anonymous admin with
 * auth off). Failed authentications are limited per client address: once an
 * address has spent them, a key not already cached is refused (429) before it
 * costs a database lookup; a cached live key still passes.
 */
export function authentication(options: { auth: "keys" | "none"; authenticate: Authenticator; failures: RateLimiter }): MiddlewareHandler<AppEnv> {
  const { burst, perSecond } = options.failures.options;
  return async (c, next) => {
    if (options.auth === "none") {
      c.set("principal", ANONYMOUS);
      return next();
    }
    const authorization = c.req.header("authorization");
    const address = clientAddress(c);
    const blocked = options.failures.peek(address);
    if (!blocked.ok && !options.authenticate.cached(authorization)) {
      throw limitReached(
        `too many failed authentications from this address (${burst}, then one every ${Math.round(1 / perSecond)} s); retry after ${blocked.retryAfterSeconds} s`,
        blocked.retryAfterSeconds,
        rateLimitFields("failed-auth", burst, 0, blocked.retryAfterSeconds, Math.ceil(burst / perSecond)),
      );
    }
    try {
      c.set("principal", await options.authenticate(authorization));
    } catch (e) {
      if (e instanceof HttpProblem && e.status === 401) options.failures.take(address);
      throw e;
    }
    await next();
  };
}
