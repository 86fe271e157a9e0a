import { OpenAPIHono, createRoute, type z } from "@hono/zod-openapi";
import { tenantScope } from "../auth/principal.ts";
import { executorOf, renderRun, requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv, Guards } from "../deps.ts";
import { idempotencyKeysIn } from "../../runs/idempotencyKeys.ts";
import { idempotency } from "../middleware/idempotency.ts";
import { HttpProblem } from "../problem.ts";
import { ExecutorParams, IdempotencyHeaders, ListRunsQuery, SubmitRunBody, RunIdParams, RunListSchema, RunSchema, VerifySchema } from "../schemas.ts";
import { errors, json } from "./responses.ts";

const createRun = createRoute({
  method: "post",
  path: "/v1/runs",
  tags: ["runs"],
  summary: "Start a research run",
  request: { headers: IdempotencyHeaders, body: { required: true, content: { "application/json": { schema: SubmitRunBody } } } },
  responses: { 201: json(RunSchema, "The run, started"), ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  description: "429 also when the key or tenant has too many queued runs (the problem names the cap).",
});

const listRuns = createRoute({
  method: "get",
  path: "/v1/runs",
  tags: ["runs"],
  summary: "List runs, newest first",
  request: { query: ListRunsQuery },
  responses: { 200: json(RunListSchema, "A page of runs; pass `next` as `cursor` for the following one"), ...errors(400, 401, 429) },
});

const getRun = createRoute({
  method: "get",
  path: "/v1/runs/{id}",
  tags: ["runs"],
  summary: "A run: state, budget, executor tree, answer once settled",
  request: { params: RunIdParams },
  responses: { 200: json(RunSchema, "The run"), ...errors(400, 401, 404, 429) },
});

const cancelRun = createRoute({
  method: "post",
  path: "/v1/runs/{id}/cancel",
  tags: ["runs"],
  summary: "Ask a run to stop (Main and, through it, its Children)",
  request: { params: RunIdParams },
  responses: { 202: json(RunSchema, "Cancellation requested"), ...errors(400, 401, 403, 404, 409, 429) },
});

const cancelExecutor = createRoute({
  method: "post",
  path: "/v1/runs/{id}/executors/{eid}/cancel",
  tags: ["executors"],
  summary: "Ask one executor of a run to stop",
  request: { params: ExecutorParams },
  responses: { 202: json(RunSchema, "Cancellation requested"), ...errors(400, 401, 403, 404, 409, 429) },
});

const verifyRun = createRoute({
  method: "get",
  path: "/v1/runs/{id}/verify",
  tags: ["audit"],
  summary: "Verify the run: every stream's hash chain, the references between streams, and the seal (root hash)",
  request: { params: RunIdParams },
  responses: { 200: json(VerifySchema, "Per-stream results; `ok` only when every chain holds"), ...errors(400, 401, 404, 429) },
});

export function runRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>, guards: Guards): void {
  const once = idempotency(idempotencyKeysIn(deps.database, deps.idempotency));
  app.openapi(createRun, async (c) => {
    requireAction(c, "create");
    const body = c.req.valid("json");
    const principal = c.get("principal");
    const submitted = await once(principal.tenant, c.req.valid("header")["idempotency-key"], body, () =>
      guards.admitQueued(principal, () => deps.runs.submit(body, principal.tenant, principal.keyId)),
    );
    if (submitted.kind === "replay") {
      const run = await visibleRun(deps, c, submitted.runId);
      c.header("Idempotent-Replayed", "true");
      return c.json(renderRun(run), 201);
    }
    c.header("Location", `/v1/runs/${submitted.value.id}`);
    return c.json(renderRun(submitted.value), 201);
  });

  app.openapi(listRuns, async (c) => {
    requireAction(c, "read");
    const q = c.req.valid("query");
    const page = await deps.runs.list(tenantScope(c.get("principal")), { limit: q.limit, cursor: q.cursor }, q.state);
    return c.json({ runs: page.runs.map(renderRun), next: page.next }, 200);
  });

  app.openapi(getRun, async (c) => {
    requireAction(c, "read");
    return c.json(renderRun(await visibleRun(deps, c, c.req.valid("param").id)), 200);
  });

  app.openapi(cancelRun, async (c) => {
    requireAction(c, "cancel");
    const { id } = c.req.valid("param");
    await visibleRun(deps, c, id);
    return c.json(renderRun(await cancelled(deps, tenantScope(c.get("principal")), id)), 202);
  });

  app.openapi(cancelExecutor, async (c) => {
    requireAction(c, "cancel");
    const { id, eid } = c.req.valid("param");
    executorOf(await visibleRun(deps, c, id), eid);
    return c.json(renderRun(await cancelled(deps, tenantScope(c.get("principal")), id, eid)), 202);
  });

  app.openapi(verifyRun, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    await visibleRun(deps, c, id);
    const result = await deps.reads.verifyRun(id);
    return c.json(JSON.parse(JSON.stringify(result)) as z.infer<typeof VerifySchema>, 200);
  });
}

async function cancelled(deps: AppDeps, scope: string | null, runId: string, executorId?: string) {
  const outcome = await deps.runs.cancel(scope, runId, executorId);
  if (outcome.kind === "not_found") throw new HttpProblem(404, "NOT_FOUND", executorId ? `run ${runId} has no executor ${executorId}` : `no run ${runId}`);
  if (outcome.kind === "already_final") {
    throw new HttpProblem(409, "ALREADY_FINAL", `${executorId ? `executor ${executorId}` : `run ${runId}`} has already stopped; nothing to cancel`);
  }
  return outcome.run;
}
