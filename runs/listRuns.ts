import { sql } from "kysely";
import type { Database } from "../db/index.ts";
import type { RunRowStatus } from "../db/schema.ts";
import { type EventRow, rowToEvent } from "../events/rowToEvent.ts";
import type { RecordedEvent } from "../events/types.ts";
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

/** A listed run with what its view is built from: the summary stored for it, or else its events. */
export interface PagedRun extends ListedRun {
  /** The view stored for the run (migration 0019), still true: no event after it, the same status, no live owner. */
  summary: unknown | null;
  /** Without a summary: every event of the run, in global order (else empty). */
  events: RecordedEvent[];
  /** Every event read comes from a transaction older than any still open: no earlier position can commit later. */
  settled: boolean;
}

/**
 * Runs submitted with a tenant (through the API), newest (or oldest) first, in
 * a scope, filtered and paged in SQL (keyset on created_at and run_id); one row
 * more than the page says whether another follows. One query: each run comes
 * with its stored summary when that is still true (`summaryVersion`: the
 * shape the caller stores), else with its events to fold.
 */
export async function listRuns(database: Database, q: ListQuery & { summaryVersion: number }): Promise<{ runs: PagedRun[]; next: RunCursor | null }> {
  const rows = await readRows(database, { ...q, limit: q.limit + 1, cursor: q.after });
  const runs = rows.slice(0, q.limit);
  const last = runs.at(-1);
  return { runs, next: rows.length > q.limit && last ? { us: last.createdUs, id: last.runId } : null };
}

/** One such run in a scope, or null when it is not there (a tenant never learns of another's runs). */
export async function readListedRun(database: Database, runId: string, scope: string | null, summaryVersion: number): Promise<PagedRun | null> {
  return (await readRows(database, { runId, scope, limit: 1, summaryVersion }))[0] ?? null;
}

/** The tenant that owns a run submitted with one, or null: a row read alone, no events. */
export async function readRunTenant(database: Database, runId: string): Promise<string | null> {
  const r = await sql<{ tenant: string }>`SELECT tenant FROM ariadne_runs WHERE run_id = ${runId} AND tenant IS NOT NULL`.execute(database.db);
  return r.rows[0]?.tenant ?? null;
}

interface RowQuery extends Omit<ListQuery, "after"> {
  runId?: string;
  cursor?: RunCursor;
  summaryVersion: number;
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

async function readRows(database: Database, q: RowQuery): Promise<PagedRun[]> {
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
  const order = (table: string) => sql.raw(asc ? `${table}.created_at ASC, ${table}.run_id ASC` : `${table}.created_at DESC, ${table}.run_id DESC`);
  // The page's rows first (their index decides the page), then per run its summary if still true, else
  // its events (index ariadne_events_run): one row per event, the run's columns repeated.
  const r = await sql<PageRow>`
    WITH page AS (
      SELECT run_id, main_executor_id, tenant, question, options, state, status, created_at, metadata,
             (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us,
             ${OWNER_LIVE} AS owner_live
      FROM ariadne_runs
      WHERE ${sql.join(where, sql` AND `)}
      ORDER BY ${order("ariadne_runs")}
      LIMIT ${q.limit}
    )
    SELECT page.*, s.view AS summary, e.*
    FROM page
    LEFT JOIN ariadne_run_summaries s
      ON s.run_id = page.run_id AND s.status = page.status AND NOT page.owner_live AND s.view_version = ${q.summaryVersion}
     AND NOT EXISTS (SELECT 1 FROM ariadne_events x WHERE x.run_id = page.run_id AND x.global_position > s.last_position)
    LEFT JOIN LATERAL (
      SELECT ev.global_position AS e_global_position, ev.event_id AS e_event_id, ev.stream_id AS e_stream_id,
             ev.stream_version AS e_stream_version, ev.executor_id AS e_executor_id, ev.type AS e_type,
             ev.schema_version AS e_schema_version, ev.data AS e_data, ev.metadata AS e_metadata, ev.recorded_at AS e_recorded_at,
             encode(ev.prev_hash, 'hex') AS e_prev_hash, encode(ev.hash, 'hex') AS e_hash,
             ev.tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS e_settled
      FROM ariadne_events ev
      WHERE ev.run_id = page.run_id AND s.run_id IS NULL
    ) e ON true
    ORDER BY ${order("page")}, e.e_global_position`.execute(database.db);
  const runs: PagedRun[] = [];
  for (const row of r.rows) {
    let run = runs.at(-1);
    if (run?.runId !== row.run_id) runs.push((run = toPagedRun(row)));
    if (row.e_global_position !== null) {
      run.events.push(rowToEvent(eventRowOf(row)));
      run.settled &&= row.e_settled === true;
    }
  }
  return runs;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

type PageRow = {
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
  summary: unknown;
  e_settled: boolean | null;
} & Nullable<{ [K in keyof Omit<EventRow, "run_id"> as `e_${K}`]: EventRow[K] }>;

const parsedJson = <T>(value: T | string | null): T | null => (typeof value === "string" ? (JSON.parse(value) as T) : value);

function toPagedRun(row: PageRow): PagedRun {
  return {
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
    metadata: parsedJson(row.metadata) ?? {},
    summary: parsedJson(row.summary),
    events: [],
    settled: true,
  };
}

function eventRowOf(row: PageRow): EventRow {
  return {
    global_position: row.e_global_position!,
    event_id: row.e_event_id!,
    stream_id: row.e_stream_id!,
    stream_version: row.e_stream_version!,
    run_id: row.run_id,
    executor_id: row.e_executor_id!,
    type: row.e_type!,
    schema_version: row.e_schema_version!,
    data: row.e_data,
    metadata: row.e_metadata,
    recorded_at: row.e_recorded_at!,
    prev_hash: row.e_prev_hash!,
    hash: row.e_hash!,
  };
}
