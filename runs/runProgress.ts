import { sql } from "kysely";
import type { Database } from "../db/index.ts";
import type { Checkpoint } from "../events/index.ts";

/**
 * Whether a run has stopped and how many of its events lie after a checkpoint:
 * a stream that has sent that many since then has sent them all. A run with a
 * row in ariadne_runs has stopped once the row is finished (its host sealed it
 * first); one without (written before runs had rows) once every admitted
 * executor has a final event.
 */
export async function runProgress(database: Database, runId: string, after: Checkpoint): Promise<{ stopped: boolean; after: number }> {
  const result = await sql<{ admitted: string | number; stopped: string | number; after: string | number; row_state: string | null }>`
    SELECT count(*) FILTER (WHERE type = 'executor_admitted') AS admitted,
           count(*) FILTER (WHERE type IN ('settled', 'failed', 'cancelled')) AS stopped,
           count(*) FILTER (WHERE (tx_id, global_position) > (${after.txId}::xid8, ${after.position})) AS after,
           (SELECT state FROM ariadne_runs WHERE run_id = ${runId}) AS row_state
    FROM ariadne_events WHERE run_id = ${runId}`.execute(database.db);
  const row = result.rows[0];
  const admitted = Number(row?.admitted ?? 0);
  const stopped = row?.row_state ? row.row_state === "finished" : admitted > 0 && admitted === Number(row?.stopped ?? 0);
  return { stopped, after: Number(row?.after ?? 0) };
}
