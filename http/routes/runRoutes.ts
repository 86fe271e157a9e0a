import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { tenantScope } from "../auth/principal.ts";
import { executorOf, renderRun, requireAction, visibleRun } from "../access.ts";
import type { AppDeps, AppEnv, Guards } from "../deps.ts";
import { idempotencyKeysIn } from "../../db/idempotencyKeys.ts";
import { idempotency } from "../middleware/idempotency.ts";
import { HttpProblem } from "../problem.ts";
import { METADATA_BOUNDS, METADATA_KEY } from "../../runs/index.ts";
import { RESERVED_METADATA_KEYS } from "../../runs/runMetadata.ts";
import { ExecutorParams, IdempotencyHeaders, ListRunsQuery, SubmitRunBody, RunIdParams, RunListSchema, RunSchema, TypesQuery, VerifySchema, WaitQuery, MAX_WAIT_SECONDS } from "../schemas.ts";
import { START } from "../../events/index.ts";
import { eventFilter } from "../live/eventFilter.ts";
import { openSlot, runStreamResponse } from "../live/runStreamResponse.ts";
import { runFrame } from "../live/sseFrame.ts";
import { waitForStop } from "../live/waitForStop.ts";
import type { RunView } from "../runs/runsPort.ts";
import type { Context } from "hono";
import { errors, json } from "./responses.ts";

const createRun = createRoute({
  operationId: "createRun",
  method: "post",
  path: "/v1/runs",
  tags: ["runs"],
  summary: "Start a research run",
  request: {
    headers: IdempotencyHeaders,
    query: WaitQuery.merge(TypesQuery),
    body: { required: true, content: { "application/json": { schema: SubmitRunBody } } },
  },
  responses: {
    201: {
      description:
        "The run, started (with `wait`: once it stopped, or as it is when the time ran out). With `Accept: text/event-stream` or `\"stream\": true`: an SSE stream, first `event: run` (the run as created, no id), then the run's events as `GET /v1/runs/{id}/events` sends them (resumable there with `Last-Event-ID`), then `end`",
      content: { "application/json": { schema: RunSchema }, "text/event-stream": { schema: z.string() } },
    },
    ...errors(400, 401, 403, 409, 413, 415, 422, 429),
  },
  description: `429 also when the key or tenant has too many queued runs, or (streaming) live streams (the problem names the cap). \`wait\` at most ${MAX_WAIT_SECONDS} s; \`wait\` with a streamed answer is a 422.`,
});

const listRuns = createRoute({
  operationId: "listRuns",
  method: "get",
  path: "/v1/runs",
  tags: ["runs"],
  summary: "List runs, newest first (or oldest first with order=asc)",
  request: { query: ListRunsQuery },
  responses: { 200: json(RunListSchema, "A page of runs; pass `next_cursor` as `cursor` for the following one"), ...errors(400, 401, 429) },
});

const getRun = createRoute({
  operationId: "getRun",
  method: "get",
  path: "/v1/runs/{id}",
  tags: ["runs"],
  summary: "A run: state, budget, executor tree, answer once settled",
  request: { params: RunIdParams, query: WaitQuery },
  responses: { 200: json(RunSchema, "The run"), ...errors(400, 401, 404, 500, 429) },
});

const cancelRun = createRoute({
  operationId: "cancelRun",
  method: "post",
  path: "/v1/runs/{id}/cancel",
  tags: ["runs"],
  summary: "Ask a run to stop (Main and, through it, its Children)",
  request: { params: RunIdParams },
  responses: { 202: json(RunSchema, "Cancellation requested"), ...errors(400, 401, 403, 404, 500, 409, 413, 429) },
});

const cancelExecutor = createRoute({
  operationId: "cancelExecutor",
  method: "post",
  path: "/v1/runs/{id}/executors/{eid}/cancel",
  tags: ["executors"],
  summary: "Ask one executor of a run to stop",
  request: { params: ExecutorParams },
  responses: { 202: json(RunSchema, "Cancellation requested"), ...errors(400, 401, 403, 404, 500, 409, 413, 429) },
});

const verifyRun = createRoute({
  operationId: "verifyRun",
  method: "get",
  path: "/v1/runs/{id}/verify",
  tags: ["audit"],
  summary: "Verify the run: every stream's hash chain, the references between streams, and the seal (root hash)",
  request: { params: RunIdParams },
  responses: { 200: json(VerifySchema, "Per-stream results; `ok` only when every chain holds"), ...errors(400, 401, 404, 500, 429) },
});

export function runRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>, guards: Guards): void {
  const once = idempotency(idempotencyKeysIn(deps.database, deps.idempotency));
  app.openapi(createRun, async (c) => {
    requireAction(c, "create");
    const { stream, ...body } = c.req.valid("json");
    const query = c.req.valid("query");
    const principal = c.get("principal");
    const streamed = stream === true || (c.req.header("accept") ?? "").includes("text/event-stream");
    if (streamed && query.wait !== undefined) {
      const message = "wait and a streamed answer are exclusive: a stream ends when the run stops";
      throw new HttpProblem(422, "UNPROCESSABLE", message, { issues: [{ path: ["query", "wait"], message }] });
    }
    const filter = eventFilter(query.types);
    // The stream's slot is taken before the run is recorded: a stream refused (429) starts no run.
    const slot = streamed ? openSlot(c, guards) : null;
    let run: RunView;
    try {
      // `stream` is how to answer, not part of the run: a retry that streams or not is the same request.
      const submitted = await once(principal.tenant, c.req.valid("header")["idempotency-key"], body, () =>
        guards.admitQueued(principal, () => deps.runs.submit({ ...body, traceparent: c.req.valid("header").traceparent }, principal.tenant, principal.keyId)),
      );
      if (submitted.kind === "replay") {
        c.header("Idempotent-Replayed", "true");
        run = await visibleRun(deps, c, submitted.runId);
      } else run = submitted.value;
    } catch (e) {
      slot?.close();
      throw e;
    }
    c.header("Location", `/v1/runs/${run.id}`);
    if (slot) {
      c.status(201);
      return runStreamResponse(c, deps, slot, { runId: run.id, from: START, filter, first: runFrame(renderRun(run)) }) as never;
    }
    if (query.wait) run = (await waited(deps, c, run.id, query.wait)) ?? run;
    return c.json(renderRun(run), 201);
  });

  app.openapi(listRuns, async (c) => {
    requireAction(c, "read");
    const q = c.req.valid("query");
    const page = await deps.runs.list(tenantScope(c.get("principal")), {
      limit: q.limit,
      cursor: q.cursor,
      state: q.state,
      order: q.order,
      createdAfter: q.created_after ? new Date(q.created_after) : undefined,
      createdBefore: q.created_before ? new Date(q.created_before) : undefined,
      metadata: metadataFilter(c.req.queries()),
    });
    return c.json({ data: page.runs.map(renderRun), has_more: page.next !== null, next_cursor: page.next, order: q.order }, 200);
  });

  app.openapi(getRun, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    const { wait } = c.req.valid("query");
    if (!wait) return c.json(renderRun(await visibleRun(deps, c, id)), 200);
    await visibleRun(deps, c, id);
    const run = await waited(deps, c, id, wait);
    if (!run) throw new HttpProblem(404, "NOT_FOUND", `no run ${id}`);
    return c.json(renderRun(run), 200);
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

/** The run once it stopped, or as it is after `seconds`; the wait ends early when the client goes away or the server shuts down. */
function waited(deps: AppDeps, c: Context<AppEnv>, runId: string, seconds: number): Promise<RunView | null> {
  const signals = [c.req.raw.signal, ...(deps.shutdown ? [deps.shutdown] : [])];
  const scope = tenantScope(c.get("principal"));
  return waitForStop({ hub: deps.hub, runId, read: () => deps.runs.get(scope, runId), ms: seconds * 1000, signal: AbortSignal.any(signals) });
}

/** `metadata[key]=value` pairs of a query (a deepObject); a key asked twice with two values, or a key no run could hold, is a 400. */
function metadataFilter(queries: Record<string, string[]>): Record<string, string> | undefined {
  // No prototype: a key is only ever a key.
  const filter: Record<string, string> = Object.create(null);
  for (const [name, values] of Object.entries(queries)) {
    const key = /^metadata\[(.*)\]$/.exec(name)?.[1];
    if (key === undefined) continue;
    const issue = (message: string) => new HttpProblem(400, "VALIDATION", `invalid query: ${name}: ${message}`, { issues: [{ path: ["query", name], message }] });
    if (!METADATA_KEY.test(key) || key.length > METADATA_BOUNDS.maxKeyLength || RESERVED_METADATA_KEYS.includes(key)) throw issue("not a metadata key");
    if (new Set(values).size > 1) throw issue("one value per key");
    filter[key] = values[0]!;
  }
  return Object.keys(filter).length ? { ...filter } : undefined;
}

async function cancelled(deps: AppDeps, scope: string | null, runId: string, executorId?: string) {
  const outcome = await deps.runs.cancel(scope, runId, executorId);
  if (outcome.kind === "not_found") throw new HttpProblem(404, "NOT_FOUND", executorId ? `run ${runId} has no executor ${executorId}` : `no run ${runId}`);
  if (outcome.kind === "already_final") {
    throw new HttpProblem(409, "ALREADY_FINAL", `${executorId ? `executor ${executorId}` : `run ${runId}`} has already stopped; nothing to cancel`);
  }
  return outcome.run;
}
