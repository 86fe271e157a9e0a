import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";

/** Gives each request an id (X-Request-Id) and logs it as one JSON line: method, path, outcome and who (by key id); never headers, bodies or the key. */
export function requestLog(log: (line: string) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    c.set("requestId", requestId);
    // Set before the response exists: setting a header afterwards makes Hono copy the response.
    c.header("X-Request-Id", requestId);
    await next();
    const p = c.get("principal");
    log(
      JSON.stringify({
        time: new Date().toISOString(),
        level: c.res.status >= 500 ? "error" : "info",
        msg: "request",
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        keyId: p?.keyId ?? null,
        tenant: p?.tenant ?? null,
      }),
    );
  };
}
