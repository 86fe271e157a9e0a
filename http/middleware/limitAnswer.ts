import { HttpProblem } from "../problem.ts";

/**
 * IETF draft RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "name";q=QUOTA[;w=WINDOW]` and `RateLimit: "name";r=LEFT;t=SECONDS`.
 */
export function rateLimitFields(name: string, quota: number, left: number, resetSeconds: number, windowSeconds?: number): Record<string, string> {
  return {
    "RateLimit-Policy": `"${name}";q=${quota}${windowSeconds === undefined ? "" : `;w=${windowSeconds}`}`,
    RateLimit: `"${name}";r=${Math.max(0, left)};t=${Math.max(0, resetSeconds)}`,
  };
}

/** A 429 problem naming the limit, with Retry-After and the RateLimit fields. */
export function limitReached(detail: string, retryAfterSeconds: number, fields: Record<string, string>): HttpProblem {
  return new HttpProblem(429, "RATE_LIMITED", detail, { headers: { "Retry-After": String(retryAfterSeconds), ...fields } });
}
