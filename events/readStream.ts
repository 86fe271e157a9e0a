import type { Database } from "../db/openDatabase.ts";
import { eventColumns, rowToEvent } from "./rowToEvent.ts";
import type { RecordedEvent } from "./types.ts";

/** A stream's events in version order, from `fromVersion` (1-based, inclusive). */
export async function readStream(
  database: Database,
  streamId: string,
  options: { fromVersion?: number; limit?: number } = {},
): Promise<RecordedEvent[]> {
  let q = database.db
    .selectFrom("ariadne_events")
    .select(eventColumns)
    .where("stream_id", "=", streamId)
    .where("stream_version", ">=", options.fromVersion ?? 1)
    .orderBy("stream_version");
  if (options.limit !== undefined) q = q.limit(options.limit);
  return (await q.execute()).map(rowToEvent);
}

/** The stream's current version; 0 when it does not exist. */
export async function streamVersion(database: Database, streamId: string): Promise<number> {
  const row = await database.db
    .selectFrom("ariadne_streams")
    .select("version")
    .where("stream_id", "=", streamId)
    .executeTakeFirst();
  return row?.version ?? 0;
}
