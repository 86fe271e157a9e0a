import { sql } from "kysely";

// Kept apart from rowToEvent.ts, which the offline bundle verifier loads without a database client.

const hex = (column: "prev_hash" | "hash") => sql<string>`encode(${sql.ref(column)}, 'hex')`.as(column);

/** The columns every read selects (an EventRow), hashes as hex. */
export const eventColumns = [
  "global_position",
  "event_id",
  "stream_id",
  "stream_version",
  "run_id",
  "executor_id",
  "type",
  "schema_version",
  "data",
  "metadata",
  "recorded_at",
  hex("prev_hash"),
  hex("hash"),
] as const;

/** The same columns for reads written as SQL text. */
export const eventColumnsSql = sql.raw(
  "global_position, event_id, stream_id, stream_version, run_id, executor_id, type, schema_version, data, metadata, " +
    "recorded_at, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash",
);
