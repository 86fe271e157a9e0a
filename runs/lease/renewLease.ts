import { sql } from "kysely";
import type { Database } from "../../db/openDatabase.ts";
import type { RunLease } from "./runLease.ts";

/** Extends the lease if this owner still holds it at this epoch; false means it was lost. */
export async function renewLease(database: Database, lease: RunLease, ttlMs: number): Promise<boolean> {
  const r = await sql`
    UPDATE ariadne_runs SET lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000}), lease_renewed_at = now()
    WHERE run_id = ${lease.runId} AND epoch = ${lease.epoch} AND lease_owner = ${lease.owner} AND state = 'running'`.execute(database.db);
  return Number(r.numAffectedRows ?? 0) === 1;
}
