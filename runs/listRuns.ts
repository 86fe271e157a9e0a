import { sql } from "kysely";
import type { Database } from "../db/index.ts";
import type { RunRowStatus } from "../db/schema.ts";
import { RunOptions, type RunRowState } from "./lease/runLease.ts";

export type { RunRowStatus } from "../db/schema.ts";

/** The states runs are listed by: queued (waiting for a worker or an operator), running (a live owner), or final. */
export type ListedState = "queued" | "running" | "settled" | "failed" | "cancelled";

/** A run's row in ariadne_runs, as a listing reads it. */
export interface ListedRun {
  runId: string;
  mainExecutorId: string;
  tenant: string;
  question: string;
  options: RunOptions;
  state: RunRowState;
  /** The row's status (migration 0011), kept by a trigger; final once the row is finished. */
  status: RunRowStatus;
  createdAt: Date;
  /** created_at in microseconds since the epoch, as text (a page cursor). */
  createdUs: string;
  /** A live process holds the run's lease now. */
  ownerLive: boolean;
  /** The submitter's string map (migration 0014); `{}` when none. */
  metadata: Record<string, string>;
}

/** Where a page ended: created_at in microseconds (a Date would drop them and skip rows) and the run id. */
export interface RunCursor {
  us: string;
  id: string;
}

/** What a listing asks for: a scope (null: every tenant), a page, filters. */
export interface ListQuery {
  scope: string | null;
  limit: number;
  state?: ListedState;
  /** Where the previous page ended, in this order. */
  after?: RunCursor;
  /** desc: newest first (the default); asc: oldest first. */
  order?: "asc" | "desc";
  /** Only runs created after / before these instants, compared at millisecond precision (as `createdAt` shows them): both bounds exclusive. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only runs whose metadata holds every one of these pairs. */
  metadata?: Record<string, string>;
}

/**
 * Runs submitted with a tenant (through the API), newest (or oldest) first, in
 * a scope, filtered and paged in SQL (keyset on created_at and run_id); one row
 * more than the page says whether another follows.
 */
export async function listRuns(database: Database, q: ListQuery): Promise<{ runs: ListedRun[]; next: RunCursor | null }> {
  const rows = await readRows(database, { ...q, limit: q.limit + 1, cursor: q.after });
  const runs = rows.slice(0, q.limit);
  const last = runs.at(-1);
  return { runs, next: rows.length > q.limit && last ? { us: last.createdUs, id: last.runId } : null };
}

/** One such run in a scope, or null when it is not there (a tenant never learns of another's runs). */
export async function readListedRun(database: Database, runId: string, scope: string | null): Promise<ListedRun | null> {
  return (await readRows(database, { runId, scope, limit: 1 }))[0] ?? null;
}

interface RowQuery extends Omit<ListQuery, "after"> {
  runId?: string;
  cursor?: RunCursor;
}

/** A live process holds the run's lease now. */
const OWNER_LIVE = sql`(status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at > now())`;

/**
 * The listed states on the row's status (migration 0011): running while a live
 * process holds the lease, queued when waiting for a worker or an operator
 * (a lease that ran out or was released counts as queued), final as recorded.
 */
function stateFilter(state: ListedState) {
  if (state === "running") return OWNER_LIVE;
  if (state === "queued") return sql`(status IN ('queued', 'interrupted') OR (status = 'running' AND NOT ${OWNER_LIVE}))`;
  return sql`status = ${state}`;
}

async function readRows(database: Database, q: RowQuery): Promise<ListedRun[]> {
  // Conditions are added only when asked for, so the planner sees each filter (and picks its index).
  const where = [sql`tenant IS NOT NULL`];
  if (q.scope !== null) where.push(sql`tenant = ${q.scope}`);
  if (q.runId !== undefined) where.push(sql`run_id = ${q.runId}`);
  if (q.state !== undefined) where.push(stateFilter(q.state));
  const asc = q.order === "asc";
  if (q.cursor) {
    const at = sql`(timestamptz 'epoch' + ${q.cursor.us}::bigint * interval '1 microsecond', ${q.cursor.id})`;
    where.push(asc ? sql`(created_at, run_id) > ${at}` : sql`(created_at, run_id) < ${at}`);
  }
  // createdAt is shown to the millisecond; a bound is compared at that precision, so created_after=X leaves X's run out.
  if (q.createdAfter) where.push(sql`created_at >= ${q.createdAfter.toISOString()}::timestamptz + interval '1 millisecond'`);
  if (q.createdBefore) where.push(sql`created_at < ${q.createdBefore.toISOString()}::timestamptz`);
  if (q.metadata && Object.keys(q.metadata).length) where.push(sql`metadata @> ${JSON.stringify(q.metadata)}::jsonb`);
  const r = await sql<{
    run_id: string;
    main_executor_id: string;
    tenant: string;
    question: string;
    options: unknown;
    state: RunRowState;
    status: RunRowStatus;
    created_at: Date | string;
    created_us: string;
    owner_live: boolean;
    metadata: Record<string, string> | string | null;
  }>`
    SELECT run_id, main_executor_id, tenant, question, options, state, status, created_at, metadata,
           (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us,
           ${OWNER_LIVE} AS owner_live
    FROM ariadne_runs
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY ${asc ? sql`created_at ASC, run_id ASC` : sql`created_at DESC, run_id DESC`}
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
    metadata: typeof row.metadata === "string" ? JSON.parse(row.metadata) : (row.metadata ?? {}),
  }));
}
