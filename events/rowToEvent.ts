import { AriadneError, formatZodIssues } from "../core/errors.ts";
import { type EventType, currentSchemaVersion, isEventType, payloadSchema, upcast } from "./catalogue.ts";
import type { RecordedEvent } from "./types.ts";

export interface EventRow {
  global_position: string | number;
  event_id: string;
  stream_id: string;
  stream_version: number;
  run_id: string;
  executor_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  /** As stored: without the run and executor ids since migration 0018 (see metadataOf). */
  metadata: unknown;
  recorded_at: Date | string;
  /** Hex, as every read selects it (stored as 32 bytes since migration 0018). */
  prev_hash: string;
  hash: string;
}

/**
 * An event's metadata as it was hashed. Since migration 0018 a row stores only
 * what its columns do not hold: the run and executor ids come from the columns,
 * and a correlation id left out is the run id. A row written before (its stored
 * metadata names its run) is whole as stored; verifyStream checks that its
 * columns agree with it.
 */
export function metadataOf(row: Pick<EventRow, "run_id" | "executor_id" | "metadata">): Record<string, unknown> {
  const stored = row.metadata as Record<string, unknown>;
  if ("runId" in stored) return stored;
  const metadata: Record<string, unknown> = { runId: row.run_id, executorId: row.executor_id, ...stored };
  if (!("correlationId" in stored)) metadata.correlationId = row.run_id;
  return metadata;
}

/**
 * Parses a stored row back into a typed event: the payload is checked against
 * the schema of the version it was written with, then upcast. A row that no
 * longer parses is a corrupted log, reported with its position.
 */
export function rowToEvent(row: EventRow): RecordedEvent {
  if (!isEventType(row.type)) throw corrupt(row, `unknown event type ${row.type}`);
  const schema = payloadSchema(row.type as EventType, row.schema_version);
  if (!schema) throw corrupt(row, `no schema for ${row.type} v${row.schema_version}`);
  const parsed = schema.safeParse(row.data);
  if (!parsed.success) throw corrupt(row, formatZodIssues(parsed.error.issues));
  const current = currentSchemaVersion(row.type as EventType);
  const data = row.schema_version === current ? row.data : upcast(row.type as EventType, row.schema_version, row.data);
  return {
    type: row.type,
    // The stored JSON, not zod's output: the hash covers exactly what was written.
    data,
    schemaVersion: row.schema_version,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    globalPosition: Number(row.global_position),
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
    metadata: metadataOf(row),
    prevHash: row.prev_hash,
    hash: row.hash,
  } as RecordedEvent;
}

function corrupt(row: EventRow, why: string) {
  return new AriadneError("CORRUPT_EVENT", 500, `event at position ${row.global_position} (${row.stream_id} v${row.stream_version}) cannot be read: ${why}`);
}
