import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { isConnectionError, isDatabaseUnavailable } from "../core/connectionLoss.ts";
import { formatIssues, fromZodIssues, isAriadneError, isValidationError } from "../core/errors.ts";
import { DamagedRunError } from "../db/quarantine.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import type { AppDeps, AppEnv, Guards } from "./deps.ts";
import { openStreams } from "./live/openStreams.ts";
import { authentication } from "./middleware/authenticate.ts";
import { DEFAULT_LIMITS, type Limits } from "./middleware/limits.ts";
import { queueAdmission } from "./middleware/queueCaps.ts";
import { requestLog } from "./middleware/requestLog.ts";
import { securityHeaders } from "./middleware/securityHeaders.ts";
import { corsPolicy } from "./middleware/corsPolicy.ts";
import { HttpProblem, problemBody, problemResponse } from "./problem.ts";
import { bodyLimit } from "./middleware/bodyLimit.ts";
import { singleQueryValues } from "./middleware/singleQueryValues.ts";
import { createRateLimiter, rateLimitPerKey } from "./middleware/rateLimit.ts";
import { docsRoutes } from "./routes/docsRoutes.ts";
import { eventRoutes } from "./routes/eventRoutes.ts";
import { executorRoutes } from "./routes/executorRoutes.ts";
import { claimRoutes } from "./routes/claimRoutes.ts";
import { auditRoutes } from "./routes/auditRoutes.ts";
import { reportRoutes } from "./routes/reportRoutes.ts";
import { healthRoutes } from "./routes/healthRoutes.ts";
import { runRoutes } from "./routes/runRoutes.ts";
import { AnswerDeltaSchema } from "./schemas.ts";

/** A restart of PostgreSQL takes seconds: the client looks again after this. */
const DATABASE_RETRY_SECONDS = 5;

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
        // Well-formed but refused on its meaning (a reserved metadata key): 422, as the use case's own checks answer.
        const unprocessable = result.error.issues.every((i) => (i as { params?: { status?: number } }).params?.status === 422);
        if (unprocessable) return problemResponse(c, problemBody(422, "UNPROCESSABLE", `unprocessable ${where}: ${formatIssues(issues)}`, issues));
        return problemResponse(c, problemBody(400, "VALIDATION", `invalid ${where}: ${formatIssues(issues)}`, issues));
      }
    },
  });

  app.use("*", requestLog(log));
  app.use("*", securityHeaders());
  const cors = corsPolicy(deps.corsOrigins ?? []);
  if (cors) app.use("*", cors);

  const limits: Limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const authenticate = createAuthenticator(deps.database, { cacheMs: deps.keyCacheMs, cacheSize: limits.keyCacheSize });
  const failures = createRateLimiter(limits.failedAuth);
  app.use("/v1/*", authentication({ auth: deps.auth ?? "keys", authenticate, failures, trustedProxies: deps.trustedProxies }));
  app.use("/v1/*", rateLimitPerKey(createRateLimiter(deps.rateLimit ?? { perSecond: 20, burst: 40 })));
  const guards: Guards = {
    streams: openStreams({
      database: deps.database,
      perKey: limits.streamsPerKey,
      perTenant: limits.streamsPerTenant,
      checkMs: limits.revocationCheckMs,
      onRevoked: (keyId) => authenticate.forget(keyId),
    }),
    admitQueued: queueAdmission(deps.database, { perKey: limits.queuedRunsPerKey, perTenant: limits.queuedRunsPerTenant }),
  };
  app.use("/v1/*", bodyLimit({ maxBytes: deps.maxBodyBytes ?? 64 * 1024 }));
  app.use("/v1/*", singleQueryValues());

  runRoutes(deps, app, guards);
  eventRoutes(deps, app, guards);
  executorRoutes(deps, app);
  claimRoutes(deps, app);
  auditRoutes(deps, app);
  reportRoutes(deps, app);
  healthRoutes(deps, app);
  docsRoutes(app);
  // `servers` names the origin the document was asked at, so a client generated from it calls the same server.
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: { title: "Ariadne API", version: "1.0.0", description: "Start, follow, cancel and audit research runs." },
    servers: [{ url: new URL(c.req.url).origin, description: "the server that answered this document" }],
    security: deps.auth === "none" ? [] : [{ bearer: [] }],
  }));
  // SSE data is not a JSON response of any route; named here so generated clients have its type.
  app.openAPIRegistry.register("AnswerDelta", AnswerDeltaSchema);
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", description: "An API key from `ariadne keys create`" });

  const allowed = allowedMethods(app);
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    // A route of this method that found nothing (an unknown /docs file) is a 404, not a 405.
    if (allow.length && !allow.includes(c.req.method)) {
      const detail = `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow.join(", ")}`;
      return problemResponse(c, problemBody(405, "METHOD_NOT_ALLOWED", detail), { Allow: allow.join(", ") });
    }
    return problemResponse(c, problemBody(404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`));
  });
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
    // The database unreachable (restarting, failed over): worth retrying, and says so; the cause (its host) stays in the log.
    if (isConnectionError(error) || isDatabaseUnavailable(error)) {
      log(JSON.stringify({ time: new Date().toISOString(), level: "warn", msg: "database unavailable", requestId: c.get("requestId"), error: String((error as Error)?.message ?? error) }));
      const detail = "the database is unreachable for now (restarting or failing over); retry after the Retry-After seconds";
      return problemResponse(c, problemBody(503, "DATABASE_UNAVAILABLE", detail), { "Retry-After": String(DATABASE_RETRY_SECONDS) });
    }
    if (isAriadneError(error) && error.status === 503) return problemResponse(c, problemBody(503, error.code, error.message));
    // A quarantined run (its log lost rows): named, with its stream and version, as `ariadne status` names it.
    if (error instanceof DamagedRunError) return problemResponse(c, problemBody(500, error.code, error.message));
    // Unexpected: the log gets the error, the caller only the request id to quote.
    const requestId = c.get("requestId");
    log(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "unhandled error", requestId, error: String((error as Error)?.stack ?? error) }));
    return problemResponse(c, problemBody(500, "INTERNAL", `the server failed to handle this request; quote request id ${requestId}`));
  });
  return app;
}

/** The methods routed for a path, from the app's own route table (built on first use, after every route is added). */
function allowedMethods(app: OpenAPIHono<AppEnv>): (path: string) => string[] {
  let table: { pattern: RegExp; method: string }[] | undefined;
  return (path) => {
    table ??= app.routes
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => ({ method: r.method, pattern: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}$`) }));
    const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
