import { sql } from "kysely";
import type { Clock, IdGenerator } from "../core/clock.ts";
import { ConcurrencyError, FencedError, TransactionOrderError, ValidationError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import { canonicalEvent } from "./hashChain.ts";
import type { AppendResult, NewEvent, RecordedEvent } from "./types.ts";
import { validateEvents } from "./validateEvents.ts";

export interface AppendDeps {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
}

/** A lease owner's token: the append is refused (FencedError) unless the run is still at this epoch. */
export interface Fence {
  runId: string;
  epoch: number;
}

/**
 * Appends events to a stream if, and only if, the stream is at `expectedVersion`
 * (0: the stream must not exist yet). All or nothing: an invalid event throws
 * ValidationError, a stale version ConcurrencyError, and nothing is written.
 */
export async function appendToStream(
  deps: AppendDeps,
  streamId: string,
  expectedVersion: number,
  events: readonly NewEvent[],
  fence?: Fence,
): Promise<AppendResult> {
  if (typeof streamId !== "string" || streamId.length === 0 || streamId.length > 200) {
    throw new ValidationError("invalid append", [{ path: ["streamId"], message: "a non-empty string of at most 200 characters" }]);
  }
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
    throw new ValidationError("invalid append", [{ path: ["expectedVersion"], message: "a non-negative integer" }]);
  }
  const valid = validateEvents(events);
  const recordedAt = deps.clock.now();
  const prepared = valid.map((e, i) => {
    const eventId = deps.newId();
    const fields = {
      eventId,
      streamId,
      streamVersion: expectedVersion + i + 1,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      recordedAt: recordedAt.toISOString(),
    };
    return { fields, canonical: canonicalEvent(fields) };
  });
  const payload = JSON.stringify(
    prepared.map(({ fields, canonical }) => ({
      event_id: fields.eventId,
      type: fields.type,
      schema_version: fields.schemaVersion,
      data: fields.data,
      metadata: fields.metadata,
      recorded_at: fields.recordedAt,
      canonical,
    })),
  );

  let rows: { global_position: string | number; stream_version: number; prev_hash: string; hash: string }[];
  try {
    const result = await sql<(typeof rows)[number]>`
      SELECT * FROM ariadne_append(${streamId}, ${expectedVersion}, ${payload}::jsonb, ${fence?.runId ?? null}, ${fence?.epoch ?? null})`.execute(
      deps.database.db,
    );
    // Matched to the events by version, not by the order the rows come back in.
    rows = result.rows.toSorted((a, b) => a.stream_version - b.stream_version);
  } catch (e) {
    const err = e as { code?: string; detail?: string };
    if (err.code === "AR412") throw new ConcurrencyError(streamId, expectedVersion, Number(err.detail));
    if (err.code === "40001") throw new TransactionOrderError(streamId, { cause: e });
    if (err.code === "AR409") throw new FencedError(fence!.runId, fence!.epoch, err.detail ? Number(err.detail) : null, { cause: e });
    throw e;
  }

  const recorded = prepared.map(({ fields }, i): RecordedEvent => ({
    ...fields,
    data: fields.data,
    recordedAt,
    globalPosition: Number(rows[i].global_position),
    prevHash: rows[i].prev_hash,
    hash: rows[i].hash,
  }) as RecordedEvent);
  return {
    nextExpectedVersion: expectedVersion + recorded.length,
    positions: recorded.map((e) => e.globalPosition),
    events: recorded,
  };
}
