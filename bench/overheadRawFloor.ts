import { type Footprint, bytesPer, footprint } from "./overheadBytes.ts";
import type { RawQuery } from "./overheadEngines.ts";

export interface RawFloor {
  inserts: number;
  payloadBytes: number;
  insertsPerSecond: number;
  msPerInsert: number;
  /** Table and WAL bytes an insert added (the table's indexes included). */
  bytes: Footprint;
}

/**
 * The floor the runtime is measured against: sequential single-row INSERTs, one
 * commit each, of a jsonb payload as large as an average turn event, into a
 * scratch table. Stops after `maxInserts` or `budgetMs`, whichever comes first.
 */
export async function measureRawFloor(
  raw: RawQuery,
  payloadBytes: number,
  { maxInserts = 3000, budgetMs = 2000 } = {},
): Promise<RawFloor> {
  await raw(`CREATE TABLE IF NOT EXISTS bench_raw_floor (id bigserial PRIMARY KEY, payload jsonb NOT NULL)`);
  const payload = JSON.stringify({ filler: "x".repeat(Math.max(0, payloadBytes - 14)) });
  for (let i = 0; i < 20; i++) await raw(`INSERT INTO bench_raw_floor (payload) VALUES ($1::jsonb)`, [payload]);

  const before = await footprint(raw);
  const started = performance.now();
  let inserts = 0;
  while (inserts < maxInserts && performance.now() - started < budgetMs) {
    await raw(`INSERT INTO bench_raw_floor (payload) VALUES ($1::jsonb)`, [payload]);
    inserts++;
  }
  const seconds = (performance.now() - started) / 1000;
  const bytes = bytesPer(before, await footprint(raw), inserts);
  await raw(`DROP TABLE bench_raw_floor`);
  return { inserts, payloadBytes: payload.length, insertsPerSecond: inserts / seconds, msPerInsert: (seconds * 1000) / inserts, bytes };
}
