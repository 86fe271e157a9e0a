import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { RunReportSchema } from "../reportSchemas.ts";
import { RunIdParams } from "../schemas.ts";
import { errors, json } from "./responses.ts";

const getReport = createRoute({
  operationId: "getRunReport",
  method: "get",
  path: "/v1/runs/{id}/report",
  tags: ["audit"],
  summary: "What the run spent, per run and per executor: turns, tool calls, tokens, cost, time, fetches, what each limit left, Main's context against its Children's",
  request: { params: RunIdParams },
  responses: { 200: json(RunReportSchema, "The run report, folded from the run's events"), ...errors(400, 401, 404, 500, 429) },
});

export function reportRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(getReport, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    await visibleRun(deps, c, id);
    return c.json(await deps.reads.report(id), 200);
  });
}
