import { sql } from "kysely";
import type { Database } from "../db/openDatabase.ts";
import type { Checkpoint } from "./readFromCheckpoint.ts";
import { eventColumnsSql } from "./eventColumns.ts";
import { type EventRow, rowToEvent } from "./rowToEvent.ts";
import type { RecordedEvent } from "./types.ts";

/** After every checkpoint: as `upTo`, no horizon at all (for a run that has stopped, whose events are all committed). */
export const END_OF_LOG: Checkpoint = { txId: "18446744073709551615", position: Number.MAX_SAFE_INTEGER };

/**
 * One run's events after a checkpoint, in the order a subscription reads the
 * log: (transaction id, position). Up to `upTo` (inclusive) when given;
 * otherwise only events of transactions older than every open one, so a slow
 * commit holding a lower position can never be skipped by a later page.
 */
export async function readRunEvents(
  database: Database,
  runId: string,
  after: Checkpoint,
  options: { limit: number; upTo?: Checkpoint },
): Promise<{ events: RecordedEvent[]; checkpoints: Checkpoint[] }> {
  const bound = options.upTo
    ? sql`(tx_id, global_position) <= (${options.upTo.txId}::xid8, ${options.upTo.position})`
    : sql`tx_id < pg_snapshot_xmin(pg_current_snapshot())`;
  const result = await sql<EventRow & { tx: string }>`
    SELECT ${eventColumnsSql}, tx_id::text AS tx
    FROM ariadne_events
    WHERE run_id = ${runId} AND (tx_id, global_position) > (${after.txId}::xid8, ${after.position}) AND ${bound}
    ORDER BY tx_id, global_position
    LIMIT ${options.limit}`.execute(database.db);
  return {
    events: result.rows.map(rowToEvent),
    checkpoints: result.rows.map((r) => ({ txId: r.tx, position: Number(r.global_position) })),
  };
}

/** The checkpoint of one event of a run, by global position; null when the run has no such event. */
export async function checkpointAt(database: Database, position: number, runId?: string): Promise<Checkpoint | null> {
  const result = await sql<{ tx: string }>`
    SELECT tx_id::text AS tx FROM ariadne_events
    WHERE global_position = ${position} ${runId === undefined ? sql`` : sql`AND run_id = ${runId}`}`.execute(database.db);
  const row = result.rows[0];
  return row ? { txId: row.tx, position } : null;
}
