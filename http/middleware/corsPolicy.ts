import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../deps.ts";

/**
 * CORS for browser apps on the origins the host allows (`serve --cors-origin`,
 * ARIADNE_CORS_ORIGINS); off when none are (a browser on another origin then
 * cannot read any answer). Mounted before authentication: a preflight carries
 * no Authorization header, so it is answered here, never with a 401. Keys are
 * bearer tokens, not cookies: credentials mode stays off.
 */
export function corsPolicy(origins: readonly string[]): MiddlewareHandler<AppEnv> | null {
  if (!origins.length) return null;
  const allowed = new Set(origins.map((o) => o.replace(/\/$/, "")));
  return cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "DELETE", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
    exposeHeaders: ["Location", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-Id", "Idempotent-Replayed"],
    maxAge: 600,
  });
}
