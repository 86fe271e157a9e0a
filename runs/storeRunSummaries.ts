import { sql } from "kysely";
import type { Database } from "../db/index.ts";
import type { RunRowStatus } from "../db/schema.ts";

/** A run's view as a reader built it, to be kept (migration 0019). */
export interface RunSummary {
  runId: string;
  /** The row's status it was built at: it is used again only while the row still says so. */
  status: RunRowStatus;
  /** The last event folded into it. */
  lastPosition: number;
  view: unknown;
}

/**
 * Statuses whose run no live process is appending to: queued (never taken),
 * interrupted (waiting for an operator) and the final ones. A run that is
 * running (its owner alive, or a lease that ran out while its owner may still
 * append) is always folded from its events.
 */
export const SUMMARY_STATUSES: readonly RunRowStatus[] = ["queued", "interrupted", "settled", "failed", "cancelled"];

/**
 * Keeps views built by a reader, in one statement. A summary never replaces one
 * built from a later event (two servers may build the same run's at once).
 */
export async function storeRunSummaries(database: Database, summaries: readonly RunSummary[], viewVersion: number): Promise<void> {
  if (summaries.length === 0) return;
  const values = summaries.map((s) => sql`(${s.runId}, ${s.status}, ${s.lastPosition}::bigint, ${viewVersion}::integer, ${JSON.stringify(s.view)}::jsonb)`);
  await sql`
    INSERT INTO ariadne_run_summaries (run_id, status, last_position, view_version, view)
    VALUES ${sql.join(values)}
    ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, last_position = excluded.last_position,
      view_version = excluded.view_version, view = excluded.view
    WHERE ariadne_run_summaries.last_position <= excluded.last_position`.execute(database.db);
}
