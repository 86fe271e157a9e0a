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
