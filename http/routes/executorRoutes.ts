import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { executorOf, requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { AnyObject, ExecutorParams } from "../schemas.ts";
import { errors, json } from "./responses.ts";

const transcript = createRoute({
  method: "get",
  path: "/v1/runs/{id}/executors/{eid}/transcript",
  tags: ["executors", "audit"],
  summary: "Every request the executor sent, rebuilt from the log and checked against the recorded digests",
  request: { params: ExecutorParams },
  responses: { 200: json(AnyObject, "The transcript"), ...errors(400, 401, 404, 429) },
});

const handoff = createRoute({
  method: "get",
  path: "/v1/runs/{id}/executors/{eid}/handoff",
  tags: ["executors", "audit"],
  summary: "The handoff a Child committed (findings, evidence, gaps, confidence)",
  request: { params: ExecutorParams },
  responses: { 200: json(AnyObject, "The committed handoff"), ...errors(400, 401, 404, 409, 429) },
});

export function executorRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(transcript, async (c) => {
    requireAction(c, "read");
    const { id, eid } = c.req.valid("param");
    executorOf(await visibleRun(deps, c, id), eid);
    const t = await deps.reads.transcript(eid);
    return c.json(JSON.parse(JSON.stringify(t)) as Record<string, unknown>, 200);
  });

  app.openapi(handoff, async (c) => {
    requireAction(c, "read");
    const { id, eid } = c.req.valid("param");
    const node = executorOf(await visibleRun(deps, c, id), eid);
    if (node.role === "main") throw new HttpProblem(404, "NOT_FOUND", `executor ${eid} is Main, which answers rather than hands off; read the run's answer`);
    const committed = (await deps.reads.executorEvents(eid)).findLast((e) => e.type === "handoff_committed");
    if (!committed || committed.type !== "handoff_committed") {
      throw new HttpProblem(409, "NO_HANDOFF", `executor ${eid} has not committed a handoff (status: ${node.status})`);
    }
    return c.json({ executorId: eid, eventId: committed.eventId, position: committed.globalPosition, ...committed.data }, 200);
  });
}
