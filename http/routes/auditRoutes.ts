import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { requireAction, visibleRun } from "../access.ts";
import { auditPageOf } from "../audit/auditPageOf.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { RunIdParams } from "../schemas.ts";
import { errors } from "./responses.ts";

const auditPage = createRoute({
  operationId: "getAuditPage",
  method: "get",
  path: "/v1/runs/{id}/audit",
  tags: ["audit"],
  summary: "The audit page: verdict, the answer with a badge per claim, each claim's chain down to its source excerpt, a timeline per executor",
  request: { params: RunIdParams },
  responses: {
    200: { content: { "text/html": { schema: z.string() } }, description: "One self-contained HTML page (the bundle's audit.html), server-rendered" },
    ...errors(400, 401, 404, 500, 429),
  },
});

export function auditRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(auditPage, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    await visibleRun(deps, c, id);
    // The page's own policy as a header too, where frame-ancestors can apply.
    const page = await auditPageOf(deps, id);
    return c.html(page.html, 200, { "Content-Security-Policy": `${page.policy}; frame-ancestors 'none'` });
  });
}
