import { sql } from "kysely";
import type { Database } from "../db/openDatabase.ts";
import { type ChainLink, type VerifyResult, verifyChain } from "./hashChain.ts";
import { eventColumns } from "./eventColumns.ts";
import { type EventRow, metadataOf } from "./rowToEvent.ts";

/**
 * Verifies a stream's hash chain from its rows as stored: no schema parsing and
 * no upcasting, so a tampered or unreadable event is named rather than thrown on,
 * and old schema versions hash as they were written. Also checks what the hash
 * cannot cover: the run and executor columns of a row that keeps the ids in its
 * stored metadata too (written before migration 0018; since, the columns are
 * what is hashed), and the stream head, so a deleted tail is noticed.
 */
export async function verifyStream(database: Database, streamId: string): Promise<VerifyResult> {
  return verifyStreamRows(database, streamId, await readStoredRows(database, streamId));
}

/** A stream's rows exactly as stored, in version order. */
export async function readStoredRows(database: Database, streamId: string): Promise<EventRow[]> {
  return (await database.db
    .selectFrom("ariadne_events")
    .select(eventColumns)
    .where("stream_id", "=", streamId)
    .orderBy("stream_version")
    .execute()) as EventRow[];
}

/** verifyStream over rows already read (run verification reads them once for the chain and the references). */
export async function verifyStreamRows(database: Database, streamId: string, rows: readonly EventRow[]): Promise<VerifyResult> {
  const links = rows.map(rowToChainLink);
  const chain = verifyChain(streamId, links);
  if (!chain.ok) return chain;

  // Rows written before migration 0018 keep the ids in their stored metadata too (the hashed copy): the columns must agree.
  const moved = rows.findIndex((r) => {
    const m = r.metadata as { runId?: unknown; executorId?: unknown };
    return (m.runId !== undefined && r.run_id !== m.runId) || (m.executorId !== undefined && r.executor_id !== m.executorId);
  });
  if (moved >= 0) return bad(streamId, links[moved], "run_id or executor_id column differs from the event's hashed metadata");

  const head = await database.db
    .selectFrom("ariadne_streams")
    .select(["version", sql<string>`encode(last_hash, 'hex')`.as("last_hash")])
    .where("stream_id", "=", streamId)
    .executeTakeFirst();
  const version = head?.version ?? 0;
  if (version !== links.length || (head && head.last_hash !== chain.lastHash)) {
    const last = links.at(-1);
    return {
      ok: false,
      streamId,
      firstBad: { streamVersion: links.length + 1, eventId: last?.eventId ?? "", globalPosition: last?.globalPosition ?? 0 },
      reason: `the stream head says version ${version} but ${links.length} events remain: events after version ${links.length} are missing`,
    };
  }
  return chain;
}

function bad(streamId: string, link: ChainLink, reason: string): VerifyResult {
  return {
    ok: false,
    streamId,
    firstBad: { streamVersion: link.streamVersion, eventId: link.eventId, globalPosition: link.globalPosition },
    reason,
  };
}

/** A stored row as the chain reads it (an export writes these, payloads as stored). */
export function rowToChainLink(row: EventRow): ChainLink {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: metadataOf(row),
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
    globalPosition: Number(row.global_position),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
