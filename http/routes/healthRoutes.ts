import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { sql } from "kysely";
import type { Database } from "../../db/index.ts";
import { migrations } from "../../migrations/index.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { errors, json } from "./responses.ts";

const healthz = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["operations"],
  summary: "The process answers",
  responses: { 200: json(z.object({ status: z.literal("ok") }), "Alive") },
});

const readyz = createRoute({
  method: "get",
  path: "/readyz",
  tags: ["operations"],
  summary: "The database is reachable and its migrations are current",
  responses: { 200: json(z.object({ status: z.literal("ready"), database: z.string(), migrations: z.number() }), "Ready"), ...errors(503) },
});

export function healthRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(healthz, (c) => c.json({ status: "ok" as const }, 200));
  app.openapi(readyz, async (c) => {
    const pending = await pendingMigrations(deps.database).catch((e) => {
      throw new HttpProblem(503, "NOT_READY", `database ${deps.database.location} is not reachable: ${(e as Error).message}`);
    });
    if (pending.length) throw new HttpProblem(503, "NOT_READY", `migrations pending: ${pending.join(", ")}; run \`ariadne migrate\``);
    return c.json({ status: "ready" as const, database: deps.database.location, migrations: Object.keys(migrations).length }, 200);
  });
}

async function pendingMigrations(database: Database): Promise<string[]> {
  const result = await sql<{ name: string }>`SELECT name FROM ariadne_migrations`.execute(database.db);
  const applied = new Set(result.rows.map((r) => r.name));
  return Object.keys(migrations).filter((m) => !applied.has(m));
}
