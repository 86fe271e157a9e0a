import { sql } from "kysely";
import { DamagedStoreError } from "../core/errors.ts";
import { readOrDamage } from "../core/damage.ts";
import type { Database } from "./openDatabase.ts";

/**
 * A cheap check at open that the events can all be read back: every append
 * moves its stream's head by the number of events it inserts, in the same
 * transaction, so the heads' versions sum to the number of events. A truncated
 * or lost table file breaks that (a sequential scan of a truncated heap simply
 * ends early), and the store is then reported as damaged instead of read in
 * part. `count(hash)` reads the heap itself (no index holds hash), so an index
 * cannot answer for rows that are gone. One scan of each table.
 */
export async function checkConsistency(database: Database): Promise<void> {
  const { events, recorded } = await readOrDamage(database.location, "the event counts", async () => {
    const { rows } = await sql<{ events: string | number; recorded: string | number }>`
      SELECT (SELECT count(hash) FROM ariadne_events) AS events,
             (SELECT coalesce(sum(version), 0) FROM ariadne_streams) AS recorded`.execute(database.db);
    return { events: Number(rows[0].events), recorded: Number(rows[0].recorded) };
  });
  if (events !== recorded) {
    throw new DamagedStoreError(
      database.location,
      `the stream heads record ${recorded} events but ${events} can be read; its files are damaged or were changed behind its back; restore it from a backup`,
    );
  }
}
