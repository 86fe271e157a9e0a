import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { executorOf, requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { HttpProblem } from "../problem.ts";
import { ExecutorParams, HandoffSchemaOut, TranscriptSchema } from "../schemas.ts";
import type { z } from "@hono/zod-openapi";
import type { Handoff } from "../../handoff/index.ts";
import { errors, json } from "./responses.ts";

const transcript = createRoute({
  operationId: "getTranscript",
  method: "get",
  path: "/v1/runs/{id}/executors/{eid}/transcript",
  tags: ["executors", "audit"],
  summary: "Every request the executor sent, rebuilt from the log and checked against the recorded digests",
  request: { params: ExecutorParams },
  responses: { 200: json(TranscriptSchema, "The transcript"), ...errors(400, 401, 404, 500, 429) },
});

const handoff = createRoute({
  operationId: "getHandoff",
  method: "get",
  path: "/v1/runs/{id}/executors/{eid}/handoff",
  tags: ["executors", "audit"],
  summary: "The handoff a Child committed (findings, evidence, gaps, confidence)",
  request: { params: ExecutorParams },
  responses: { 200: json(HandoffSchemaOut, "The committed handoff"), ...errors(400, 401, 404, 500, 409, 429) },
});

export function executorRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(transcript, async (c) => {
    requireAction(c, "read");
    const { id, eid } = c.req.valid("param");
    executorOf(await visibleRun(deps, c, id), eid);
    const t = await deps.reads.transcript(eid);
    return c.json(JSON.parse(JSON.stringify(t)) as z.infer<typeof TranscriptSchema>, 200);
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
    // Validated against the handoff contract before it was recorded.
    const handoff = committed.data.handoff as unknown as Handoff;
    return c.json({ executorId: eid, eventId: committed.eventId, position: committed.globalPosition, ...committed.data, handoff }, 200);
  });
}
