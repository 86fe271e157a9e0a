import { sql } from "kysely";
import type { Database } from "../db/openDatabase.ts";
import { eventColumnsSql } from "./eventColumns.ts";
import { type EventRow, rowToEvent } from "./rowToEvent.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * Where a subscription stands in the log. Order is (transaction id, position):
 * a transaction that commits late cannot slip in *behind* the checkpoint,
 * because only events of transactions older than every open one are read.
 */
export interface Checkpoint {
  /** Writing transaction id (xid8) as decimal text. */
  txId: string;
  position: number;
}

export const START: Checkpoint = { txId: "0", position: 0 };

/** Orders checkpoints as the log is read: by transaction id, then position. */
export function compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
  const tx = BigInt(a.txId) - BigInt(b.txId);
  return tx !== 0n ? (tx < 0n ? -1 : 1) : a.position - b.position;
}

export interface Batch {
  events: RecordedEvent[];
  /** Checkpoint after each event, index-aligned with events. */
  checkpoints: Checkpoint[];
}

/**
 * Reads committed events after the checkpoint whose transactions are older than
 * the oldest transaction still in flight (pg_snapshot_xmin). Anything later may
 * still be joined by a slower transaction with a lower position, so it waits.
 */
export async function readFromCheckpoint(database: Database, after: Checkpoint, limit = 500): Promise<Batch> {
  const result = await sql<EventRow & { tx: string }>`
    SELECT ${eventColumnsSql}, tx_id::text AS tx
    FROM ariadne_events
    WHERE (tx_id, global_position) > (${after.txId}::xid8, ${after.position})
      AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY tx_id, global_position
    LIMIT ${limit}`.execute(database.db);
  return {
    events: result.rows.map(rowToEvent),
    checkpoints: result.rows.map((r) => ({ txId: r.tx, position: Number(r.global_position) })),
  };
}

/** The checkpoint of the last event committed so far (in read order), or undefined for an empty log. */
export async function lastCommitted(database: Database): Promise<Checkpoint | undefined> {
  const result = await sql<{ tx: string; global_position: string | number }>`
    SELECT tx_id::text AS tx, global_position FROM ariadne_events
    ORDER BY tx_id DESC, global_position DESC
    LIMIT 1`.execute(database.db);
  const row = result.rows[0];
  return row && { txId: row.tx, position: Number(row.global_position) };
}

export async function loadCheckpoint(database: Database, subscriptionId: string): Promise<Checkpoint> {
  const row = await database.db
    .selectFrom("ariadne_checkpoints")
    .select(["tx_id", "position"])
    .where("subscription_id", "=", subscriptionId)
    .executeTakeFirst();
  return row ? { txId: row.tx_id, position: Number(row.position) } : START;
}

export async function storeCheckpoint(database: Database, subscriptionId: string, at: Checkpoint): Promise<void> {
  await database.db
    .insertInto("ariadne_checkpoints")
    .values({ subscription_id: subscriptionId, tx_id: at.txId, position: String(at.position) })
    .onConflict((oc) =>
      oc.column("subscription_id").doUpdateSet({ tx_id: at.txId, position: String(at.position), updated_at: sql`now()` as never }),
    )
    .execute();
}

/** A subscription's checkpoint forgotten (a subscriber that will not come back). */
export async function deleteCheckpoint(database: Database, subscriptionId: string): Promise<void> {
  await database.db.deleteFrom("ariadne_checkpoints").where("subscription_id", "=", subscriptionId).execute();
}

/**
 * Just below the commit horizon: after every event of transactions older than
 * the oldest one still open, before any event of that one. A subscription
 * starting here misses nothing committed later.
 */
export async function commitHorizon(database: Database): Promise<Checkpoint> {
  const xmin = await sql<{ xmin: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`.execute(database.db);
  // Past any real position: (tx, MAX) sorts after every event of that transaction.
  return { txId: (BigInt(xmin.rows[0].xmin) - 1n).toString(), position: Number.MAX_SAFE_INTEGER };
}
