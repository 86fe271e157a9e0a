import type { RawQuery } from "./overheadEngines.ts";

/** What the database holds and has logged: WAL written so far, and the size of every table in `public` (indexes and TOAST included). */
export interface Footprint {
  walBytes: number;
  tableBytes: number;
}

export async function footprint(raw: RawQuery): Promise<Footprint> {
  const result = (await raw(`
    SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal,
           (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind = 'r') AS tables`)) as { rows: { wal: string; tables: string }[] };
  return { walBytes: Number(result.rows[0].wal), tableBytes: Number(result.rows[0].tables) };
}

/** Bytes written between two footprints, per unit (a turn, an insert). */
export function bytesPer(before: Footprint, after: Footprint, units: number): Footprint {
  return { walBytes: (after.walBytes - before.walBytes) / units, tableBytes: (after.tableBytes - before.tableBytes) / units };
}
