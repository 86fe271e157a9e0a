import { randomUUID } from "node:crypto";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { formatIssues, fromZodIssues, isAriadneError, isValidationError } from "../core/errors.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { ANONYMOUS } from "./auth/principal.ts";
import type { AppDeps, AppEnv } from "./deps.ts";
import { HttpProblem, problemBody, problemResponse } from "./problem.ts";
import { createRateLimiter } from "./rateLimit.ts";
import { docsRoutes } from "./routes/docsRoutes.ts";
import { eventRoutes } from "./routes/eventRoutes.ts";
import { executorRoutes } from "./routes/executorRoutes.ts";
import { healthRoutes } from "./routes/healthRoutes.ts";
import { runRoutes } from "./routes/runRoutes.ts";

const WHERE: Record<string, string> = { json: "body", param: "path", query: "query", header: "header", cookie: "cookie" };

/**
 * The HTTP API over Web-standard Request/Response: the same app runs under
 * Node (@hono/node-server) and Deno (Deno.serve). Every route parses with zod
 * (so /openapi.json comes from the code), authorises, calls one use case and
 * renders; every error leaves as RFC 9457 problem details.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const log = deps.log ?? ((line: string) => console.log(line));
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const where = WHERE[result.target] ?? result.target;
        const issues = fromZodIssues(result.error.issues, [where]);
        return problemResponse(c, problemBody(400, "VALIDATION", `invalid ${where}: ${formatIssues(issues)}`, issues));
      }
    },
  });

  app.use("*", async (c, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    c.set("requestId", requestId);
    // Set before the response exists: setting a header afterwards makes Hono copy the response.
    c.header("X-Request-Id", requestId);
    await next();
    const p = c.get("principal");
    // Method, path, outcome and who (by key id): never headers, bodies or the key itself.
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
  });

  const authenticate = createAuthenticator(deps.database, { cacheMs: deps.keyCacheMs });
  const limiter = createRateLimiter(deps.rateLimit ?? { perSecond: 20, burst: 40 });
  app.use("/v1/*", async (c, next) => {
    const principal = deps.auth === "none" ? ANONYMOUS : await authenticate(c.req.header("authorization"));
    c.set("principal", principal);
    const admission = limiter.take(principal.keyId ?? "anonymous");
    if (!admission.ok) {
      throw new HttpProblem(429, "RATE_LIMITED", `too many requests for this key; retry after ${admission.retryAfterSeconds} s`, {
        headers: { "Retry-After": String(admission.retryAfterSeconds) },
      });
    }
    await next();
  });
  const limitBody = bodyLimit({
    maxSize: deps.maxBodyBytes ?? 64 * 1024,
    onError: (c) => problemResponse(c, problemBody(413, "TOO_LARGE", `the body exceeds ${deps.maxBodyBytes ?? 64 * 1024} bytes`)),
  });
  // Only where a body can come: the check reads the raw Request, which @hono/node-server otherwise never builds.
  app.use("/v1/*", (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  runRoutes(deps, app);
  eventRoutes(deps, app);
  executorRoutes(deps, app);
  healthRoutes(deps, app);
  docsRoutes(app);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Ariadne API", version: "1.0.0", description: "Start, follow, cancel and audit research runs." },
    security: deps.auth === "none" ? [] : [{ bearer: [] }],
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", description: "An API key from `ariadne keys create`" });

  app.notFound((c) => problemResponse(c, problemBody(404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`)));
  app.onError((error, c) => {
    if (error instanceof HttpProblem) {
      return problemResponse(c, problemBody(error.status, error.code, error.message, error.extra.issues), error.extra.headers);
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      const detail = status === 415 ? "send the body as application/json" : error.message || "bad request";
      return problemResponse(c, problemBody(status, status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : "BAD_REQUEST", detail));
    }
    if (isValidationError(error)) return problemResponse(c, problemBody(400, error.code, error.message, error.issues));
    if (isAriadneError(error) && error.status < 500) return problemResponse(c, problemBody(error.status, error.code, error.message));
    if (isAriadneError(error) && error.status === 503) return problemResponse(c, problemBody(503, error.code, error.message));
    // Unexpected: the log gets the error, the caller only the request id to quote.
    const requestId = c.get("requestId");
    log(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "unhandled error", requestId, error: String((error as Error)?.stack ?? error) }));
    return problemResponse(c, problemBody(500, "INTERNAL", `the server failed to handle this request; quote request id ${requestId}`));
  });
  return app;
}
