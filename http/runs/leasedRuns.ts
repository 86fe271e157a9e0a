import type { KeyObject } from "node:crypto";
import { sql } from "kysely";
import { AriadneError, isAriadneError, isValidationError, type IssueDetail } from "../../core/errors.ts";
import type { Database } from "../../db/index.ts";
import type { EventStore } from "../../events/index.ts";
import { type Caps, type CapsRequest, CONFIGURED_CAPS, resolveCaps } from "../../governance/index.ts";
import type { Env } from "../../models/index.ts";
import { listProfiles } from "../../profiles/index.ts";
import { projectRun } from "../../projections/index.ts";
import { type ChosenRun, RunOptions, chooseRun, cancelRun, submitRun } from "../../runs/index.ts";
import { HttpProblem } from "../problem.ts";
import { type RunRow, runViewOf } from "./runViewOf.ts";
import { FINAL_STATES, type CancelOutcome, type RunState, type RunView, type RunsPort, type SubmitRunInput } from "./runsPort.ts";

export interface LeasedRunsOptions {
  store: EventStore;
  /** ANTHROPIC_API_KEY set: runs use the configured model; else the scripted offline scenario. */
  env?: Env;
  profilesDir?: string;
  /** The most a run may ask for; default the configured caps. */
  maximum?: Caps;
  /** Recorded with every run submitted (RunOptions.tags): hints for whoever hosts it, e.g. a test's scriptedLatencyMs. */
  tags?: Record<string, string>;
  /** The key a run ended by a cancel is sealed with. */
  sealKey?: KeyObject;
}

/**
 * The RunsPort over runs/: a submission is a row in ariadne_runs (with its
 * tenant) and a run_submitted fact, executed by whichever worker takes its
 * lease; views are the row plus the run projection; a cancel is runs/cancelRun
 * (a request to the live host, or a takeover when there is none).
 */
export function createLeasedRuns(options: LeasedRunsOptions): RunsPort {
  const { store } = options;
  const database = store.database;
  const env = options.env ?? {};
  const cancel = cancelRun({ database, store, sealKey: options.sealKey });
  // A finished run's row and view never change again: kept (bounded), so reading one is neither a
  // query nor a projection.
  const finished = new Map<string, { tenant: string | null; view: RunView }>();

  async function view(row: RunRow): Promise<RunView> {
    const cached = finished.get(row.runId);
    if (cached) return cached.view;
    const v = runViewOf(row, await projectRun(store, row.runId, { ownerLive: row.ownerLive }));
    if (row.state === "finished" && FINAL_STATES.includes(v.state)) remember(finished, row.runId, { tenant: row.tenant, view: v });
    return v;
  }

  async function get(scope: string | null, runId: string): Promise<RunView | null> {
    const known = finished.get(runId);
    if (known) return scope === null || known.tenant === scope ? known.view : null;
    const row = (await readRows(database, { runId, scope, limit: 1 }))[0];
    return row ? view(row) : null;
  }

  return {
    get,
    async owner(runId) {
      const known = finished.get(runId);
      if (known) return known.tenant;
      return (await readRows(database, { runId, scope: null, limit: 1 }))[0]?.tenant ?? null;
    },
    async submit(input, tenant, keyId) {
      // A question without a configured model is refused (503), never answered by a scripted scenario.
      const choice = chooseRun(input, { modelConfigured: !!env.ANTHROPIC_API_KEY, nothingAsked: "refuse" });
      const runOptions = await optionsOf(input, choice, options.profilesDir, options.maximum, options.tags);
      const { runId } = await submitRun(store, { question: choice.question, options: runOptions, tenant, keyId });
      return (await get(tenant, runId))!;
    },
    async list(scope, page, state) {
      const cursor = page.cursor ? decodeCursor(page.cursor) : undefined;
      // Filtered and paged in SQL on the row's status; one row more than the page says whether another follows.
      const rows = await readRows(database, { scope, limit: page.limit + 1, cursor, state });
      const shown = rows.slice(0, page.limit);
      const runs: RunView[] = [];
      for (const row of shown) runs.push(await view(row));
      const last = shown.at(-1);
      return { runs, next: rows.length > page.limit && last ? encodeCursor({ us: last.createdUs, id: last.runId }) : null };
    },
    async cancel(scope, runId, executorId): Promise<CancelOutcome> {
      const run = await get(scope, runId);
      if (!run) return { kind: "not_found" };
      const node = findNode(run.executors, executorId ?? run.mainExecutorId);
      if (!node) return { kind: "not_found" };
      if (FINAL_STATES.includes(run.state) || node.status !== "running") return { kind: "already_final", run };
      try {
        await cancel({
          runId,
          executorId,
          reason: executorId ? "cancelled by an operator through the API (executor)" : "cancelled by an operator through the API",
          by: "operator",
        });
      } catch (e) {
        // Finished between the read and the cancel.
        if (isAriadneError(e) && e.code === "RUN_FINISHED") return { kind: "already_final", run: (await get(scope, runId))! };
        throw e;
      }
      return { kind: "requested", run: (await get(scope, runId))! };
    },
  };
}

/**
 * The run's recorded options from a submission, checked before anything is
 * written: caps through governance/resolveCaps (a cap above the maximum is 422
 * naming the field), allowed profiles against the installed ones.
 */
async function optionsOf(input: SubmitRunInput, choice: ChosenRun, profilesDir?: string, maximum: Caps = CONFIGURED_CAPS, tags: Record<string, string> = {}): Promise<RunOptions> {
  const issues: IssueDetail[] = [];
  let caps: Caps | undefined;
  try {
    caps = resolveCaps(capsRequest(input.caps), maximum);
  } catch (e) {
    if (!isValidationError(e)) throw e;
    issues.push(...e.issues.map((i) => ({ path: ["body", "caps", ...apiPath(i.path)], message: i.message })));
  }
  if (input.allowedProfiles) {
    const known = (await listProfiles(profilesDir)).map((p) => p.id);
    const unknown = input.allowedProfiles.filter((p) => !known.includes(p));
    if (unknown.length) issues.push({ path: ["body", "allowedProfiles"], message: `unknown ${unknown.join(", ")} (known: ${known.join(", ")})` });
  }
  if (issues.length) {
    throw new HttpProblem(422, "UNPROCESSABLE", issues.map((i) => `${i.path.slice(1).join(".")}: ${i.message}`).join("; "), { issues });
  }
  const role = (c?: { maxTurns?: number; maxToolCalls?: number }) => Object.fromEntries(Object.entries(c ?? {}).filter(([, v]) => v !== undefined)) as Record<string, number>;
  return RunOptions.parse({
    mode: choice.kind === "model" ? "model" : "offline",
    scenario: choice.kind === "scenario" ? choice.scenario : undefined,
    tags,
    caps,
    limits: { main: role(input.caps?.main), child: role(input.caps?.child) },
    reviewer: input.reviewer ?? "off",
    allowedProfiles: input.allowedProfiles ? [...new Set(input.allowedProfiles)] : undefined,
    context: input.context,
    models: input.models,
  });
}

/** The API's caps onto governance's: Child caps lower investigate-style Children too (never raise them). */
function capsRequest(caps: SubmitRunInput["caps"]): CapsRequest {
  const request: Record<string, Record<string, number>> = {};
  for (const [field, v] of Object.entries(caps?.main ?? {})) if (v !== undefined) (request.main ??= {})[field] = v;
  for (const [field, v] of Object.entries(caps?.child ?? {})) {
    if (v === undefined) continue;
    (request.child ??= {})[field] = v;
    const investigate = (CONFIGURED_CAPS.investigate as Record<string, number>)[field];
    (request.investigate ??= {})[field] = Math.min(v, investigate);
  }
  if (caps?.maxDepth !== undefined) request.delegation = { maxDepth: caps.maxDepth };
  return request as CapsRequest;
}

/** governance's cap paths back to the API body's (delegation.maxDepth is caps.maxDepth). */
const apiPath = (path: readonly (string | number)[]) => (path[0] === "delegation" ? path.slice(1) : path);

interface RowQuery {
  scope: string | null;
  limit: number;
  runId?: string;
  cursor?: Cursor;
  state?: RunState;
}

/** A live process holds the run's lease now. */
const OWNER_LIVE = sql`(status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at > now())`;

/**
 * The API's states on the row's status (migration 0011): running while a live
 * process holds the lease, queued when waiting for a worker or an operator
 * (a lease that ran out or was released counts as queued), final as recorded.
 */
function stateFilter(state: RunState) {
  if (state === "running") return OWNER_LIVE;
  if (state === "queued") return sql`(status IN ('queued', 'interrupted') OR (status = 'running' AND NOT ${OWNER_LIVE}))`;
  return sql`status = ${state}`;
}

/** Rows of ariadne_runs the API may show (submitted through it: a tenant is set), newest first. */
async function readRows(database: Database, q: RowQuery): Promise<RunRow[]> {
  // Conditions are added only when asked for, so the planner sees each filter (and picks its index).
  const where = [sql`tenant IS NOT NULL`];
  if (q.scope !== null) where.push(sql`tenant = ${q.scope}`);
  if (q.runId !== undefined) where.push(sql`run_id = ${q.runId}`);
  if (q.state !== undefined) where.push(stateFilter(q.state));
  if (q.cursor) {
    where.push(sql`(created_at, run_id) < (timestamptz 'epoch' + ${q.cursor.us}::bigint * interval '1 microsecond', ${q.cursor.id})`);
  }
  const r = await sql<{
    run_id: string;
    main_executor_id: string;
    tenant: string;
    question: string;
    options: unknown;
    state: RunRow["state"];
    status: RunRow["status"];
    created_at: Date | string;
    created_us: string;
    owner_live: boolean;
  }>`
    SELECT run_id, main_executor_id, tenant, question, options, state, status, created_at,
           (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us,
           ${OWNER_LIVE} AS owner_live
    FROM ariadne_runs
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY created_at DESC, run_id DESC
    LIMIT ${q.limit}`.execute(database.db);
  return r.rows.map((row) => ({
    runId: row.run_id,
    mainExecutorId: row.main_executor_id,
    tenant: row.tenant,
    question: row.question,
    options: RunOptions.parse(row.options),
    state: row.state,
    status: row.status,
    createdAt: new Date(row.created_at),
    createdUs: row.created_us,
    ownerLive: row.owner_live,
  }));
}

function findNode(node: RunView["executors"], id: string): RunView["executors"] | null {
  if (node.id === id) return node;
  for (const c of node.children) {
    const found = findNode(c, id);
    if (found) return found;
  }
  return null;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= 2000) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Where a page ended: created_at in microseconds (a Date would drop them and skip rows) and the run id. */
interface Cursor {
  us: string;
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.us, c.id])).toString("base64url");

function decodeCursor(text: string): Cursor {
  try {
    const [us, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof us === "string" && /^\d{1,18}$/.test(us) && typeof id === "string" && id.length <= 128) return { us, id };
  } catch {}
  throw new AriadneError("VALIDATION", 400, "cursor is not one this API returned; pass `next` from the previous page");
}
