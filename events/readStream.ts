import type { Database } from "../db/openDatabase.ts";
import { eventColumns } from "./eventColumns.ts";
import { rowToEvent } from "./rowToEvent.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * Where the stream's run is known (a store fenced to a run's lease), reads name
 * it, so a table distributed by run_id routes them to one node (docs/scaling.md).
 */
export interface StreamReadOptions {
  fromVersion?: number;
  limit?: number;
  runId?: string;
}

/** A stream's events in version order, from `fromVersion` (1-based, inclusive). */
export async function readStream(database: Database, streamId: string, options: StreamReadOptions = {}): Promise<RecordedEvent[]> {
  let q = database.db.selectFrom("ariadne_events").select(eventColumns);
  if (options.runId !== undefined) q = q.where("run_id", "=", options.runId);
  q = q.where("stream_id", "=", streamId).where("stream_version", ">=", options.fromVersion ?? 1).orderBy("stream_version");
  if (options.limit !== undefined) q = q.limit(options.limit);
  return (await q.execute()).map(rowToEvent);
}

/** The stream's current version; 0 when it does not exist. */
export async function streamVersion(database: Database, streamId: string, runId?: string): Promise<number> {
  let q = database.db.selectFrom("ariadne_streams").select("version");
  if (runId !== undefined) q = q.where("run_id", "=", runId);
  const row = await q.where("stream_id", "=", streamId).executeTakeFirst();
  return row?.version ?? 0;
}
