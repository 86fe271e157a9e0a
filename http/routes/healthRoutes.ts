import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { pendingMigrations } from "../../db/index.ts";
import { migrations } from "../../migrations/index.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { errors, json } from "./responses.ts";

const healthz = createRoute({
  operationId: "healthz",
  security: [],
  method: "get",
  path: "/healthz",
  tags: ["operations"],
  summary: "The process answers",
  responses: { 200: json(z.object({ status: z.literal("ok") }), "Alive") },
});

const readyz = createRoute({
  operationId: "readyz",
  security: [],
  method: "get",
  path: "/readyz",
  tags: ["operations"],
  summary: "The database is reachable and its migrations are current",
  description:
    "Unauthenticated, so it says only ready or not and why in words: never the database's host, user, name or path (the server's log has the cause). 503 also while the live event hub (which SSE streams and `wait` follow) cannot read the database.",
  responses: { 200: json(z.object({ status: z.literal("ready"), migrations: z.number() }), "Ready"), ...errors(503) },
});

/**
 * How long /readyz waits for the database. A query on the server's own handle waits out a lost connection
 * (ARIADNE_DATABASE_WAIT_MS, a minute by default) so runs survive a restart; a readiness probe times out in
 * seconds and needs its answer before then.
 */
export const READY_WAIT_MS = 2_000;

export function healthRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(healthz, (c) => c.json({ status: "ok" as const }, 200));
  app.openapi(readyz, async (c) => {
    const log = deps.log ?? ((line: string) => console.log(line));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${READY_WAIT_MS} ms`)), READY_WAIT_MS)));
    const pending = await Promise.race([pendingMigrations(deps.database), silent])
      .catch((e) => {
        // The cause (which names the host) goes to the log only.
        log(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "not ready", requestId: c.get("requestId"), database: deps.database.location, error: String((e as Error)?.message ?? e) }));
        throw new HttpProblem(503, "NOT_READY", "not ready: the database is not reachable", { headers: { "Retry-After": "5" } });
      })
      .finally(() => clearTimeout(timer));
    // Reachable, yet live streams and waits cannot follow runs until the hub reads again.
    const hub = deps.hub.health();
    if (!hub.ok) {
      log(JSON.stringify({ time: new Date().toISOString(), level: "warn", msg: "not ready", requestId: c.get("requestId"), reason: hub.reason }));
      throw new HttpProblem(503, "NOT_READY", "not ready: live event streams cannot read the database", { headers: { "Retry-After": "5" } });
    }
    if (pending.length) throw new HttpProblem(503, "NOT_READY", `not ready: ${pending.length} database migration(s) pending; run \`ariadne migrate\``);
    return c.json({ status: "ready" as const, migrations: Object.keys(migrations).length }, 200);
  });
}
