import type { Database } from "../db/openDatabase.ts";
import { eventColumns } from "./eventColumns.ts";
import { rowToEvent } from "./rowToEvent.ts";
import type { RecordedEvent } from "./types.ts";

export interface Page {
  events: RecordedEvent[];
  /** Pass as `after` to read the next page; equal to `after` when nothing was read. */
  lastPosition: number;
}

/**
 * All events after a global position, in position order, one page at a time.
 * For catch-up by position; live consumers should use a subscription, which
 * also waits for slower transactions holding lower positions.
 */
export async function readAll(database: Database, options: { after?: number; limit?: number } = {}): Promise<Page> {
  const after = options.after ?? 0;
  const rows = await database.db
    .selectFrom("ariadne_events")
    .select(eventColumns)
    .where("global_position", ">", String(after))
    .orderBy("global_position")
    .limit(options.limit ?? 500)
    .execute();
  const events = rows.map(rowToEvent);
  return { events, lastPosition: events.at(-1)?.globalPosition ?? after };
}

/** Every event of one run, in global order. */
export async function readRun(database: Database, runId: string): Promise<RecordedEvent[]> {
  const rows = await database.db
    .selectFrom("ariadne_events")
    .select(eventColumns)
    .where("run_id", "=", runId)
    .orderBy("global_position")
    .execute();
  return rows.map(rowToEvent);
}

/**
 * Every event of several runs in one query (a page of runs for a listing), each
 * run's in global order; a run with no events maps to an empty list.
 */
export async function readRuns(database: Database, runIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
  const byRun = new Map<string, RecordedEvent[]>(runIds.map((id) => [id, []]));
  if (runIds.length === 0) return byRun;
  const rows = await database.db
    .selectFrom("ariadne_events")
    .select(eventColumns)
    .where("run_id", "in", [...runIds])
    .orderBy("global_position")
    .execute();
  for (const row of rows) {
    const e = rowToEvent(row);
    byRun.get(e.metadata.runId)?.push(e);
  }
  return byRun;
}
