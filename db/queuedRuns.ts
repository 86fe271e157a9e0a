import { sql } from "kysely";
import type { Database } from "./index.ts";

/**
 * Runs a tenant has queued (submitted, not yet taken by a worker), and how many
 * of them one key submitted: what the API's queue caps are checked against.
 */
export async function countQueuedRuns(database: Database, tenant: string, keyId: string | null): Promise<{ byKey: number; byTenant: number }> {
  const counts = (
    await sql<{ by_key: string | number; by_tenant: string | number }>`
      SELECT count(*) FILTER (WHERE key_id = ${keyId}) AS by_key, count(*) AS by_tenant
      FROM ariadne_runs WHERE tenant = ${tenant} AND status = 'queued'`.execute(database.db)
  ).rows[0];
  return { byKey: Number(counts?.by_key ?? 0), byTenant: Number(counts?.by_tenant ?? 0) };
}
