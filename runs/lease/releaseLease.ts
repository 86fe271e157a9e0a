import { sql } from "kysely";
import type { Database } from "../../db/openDatabase.ts";
import type { RunLease, RunRowState } from "./runLease.ts";

/**
 * Gives the run up, if this owner still holds it. "running" leaves it takeable
 * at once (a worker shutting down, a lost database connection); "interrupted"
 * waits for an operator's resume or cancel; "finished" takes it off the queue.
 */
export async function releaseLease(database: Database, lease: RunLease, state: Exclude<RunRowState, "submitted">): Promise<boolean> {
  const r = await sql`
    UPDATE ariadne_runs
    SET state = ${state}, lease_owner = NULL, lease_expires_at = NULL
    WHERE run_id = ${lease.runId} AND epoch = ${lease.epoch}`.execute(database.db);
  return Number(r.numAffectedRows ?? 0) === 1;
}
