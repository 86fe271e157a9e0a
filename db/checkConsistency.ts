import { sql } from "kysely";
import { readOrDamage } from "../core/damage.ts";
import type { Database } from "./openDatabase.ts";
import type { StreamDamage } from "./quarantine.ts";

/**
 * A cheap check at open that the events can all be read back: every append
 * moves its stream's head by the number of events it inserts, in the same
 * transaction, so the heads' versions sum to the number of events. A truncated
 * or lost table file breaks that (a sequential scan of a truncated heap simply
 * ends early). `count(hash)` reads the heap itself (no index holds hash), so an
 * index cannot answer for rows that are gone. One scan of each table.
 *
 * When the sums differ, the streams that lost rows are found (one more scan of
 * each table, indexes set aside so only the heap answers) and returned, each
 * with its run and the first version that cannot be read: the caller
 * quarantines those runs (db/quarantine.ts) instead of refusing the store.
 * A table that cannot be read at all is still a DamagedStoreError.
 */
export async function checkConsistency(database: Database): Promise<StreamDamage[]> {
  const { events, recorded } = await readOrDamage(database.location, "the event counts", async () => {
    const { rows } = await sql<{ events: string | number; recorded: string | number }>`
      SELECT (SELECT count(hash) FROM ariadne_events) AS events,
             (SELECT coalesce(sum(version), 0) FROM ariadne_streams) AS recorded`.execute(database.db);
    return { events: Number(rows[0].events), recorded: Number(rows[0].recorded) };
  });
  if (events === recorded) return [];
  return readOrDamage(database.location, "the damaged streams", () => locateDamage(database));
}

async function locateDamage(database: Database): Promise<StreamDamage[]> {
  return database.db.transaction().execute(async (tx) => {
    // The heap only: an index may still point at rows the heap lost.
    await sql`SET LOCAL enable_indexscan = off`.execute(tx);
    await sql`SET LOCAL enable_indexonlyscan = off`.execute(tx);
    await sql`SET LOCAL enable_bitmapscan = off`.execute(tx);
    const short = await sql<{ run_id: string; stream_id: string; recorded: number; readable: number }>`
      SELECT s.run_id, s.stream_id, s.version::int AS recorded, coalesce(e.n, 0)::int AS readable
      FROM ariadne_streams s
      LEFT JOIN (SELECT run_id, stream_id, count(hash) AS n FROM ariadne_events GROUP BY run_id, stream_id) e
        ON e.run_id = s.run_id AND e.stream_id = s.stream_id
      WHERE coalesce(e.n, 0) <> s.version
      ORDER BY s.run_id, s.stream_id`.execute(tx);
    const found: StreamDamage[] = [];
    for (const s of short.rows) {
      const { rows } = await sql<{ v: number }>`
        SELECT stream_version::int AS v FROM ariadne_events WHERE run_id = ${s.run_id} AND stream_id = ${s.stream_id} ORDER BY 1`.execute(tx);
      let missing = 1;
      for (const { v } of rows) if (v === missing) missing++;
      found.push({ runId: s.run_id, streamId: s.stream_id, recorded: s.recorded, readable: s.readable, missing });
    }
    return found;
  });
}
