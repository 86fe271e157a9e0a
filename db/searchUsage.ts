import { sql } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "./openDatabase.ts";

/**
 * The server-side web searches a run's model calls ran (ARIADNE_SEARCH=anthropic),
 * from the log: each turn's usage.webSearchRequests, summed over every executor
 * of the run (governance/checkLimits.ts stops searching at the run's cap).
 */
export async function searchUsage(database: Database, runId: string): Promise<number> {
  const { rows } = await retryOnConnectionLoss(`read the web searches of run ${runId}`, () =>
    sql<{ searches: number }>`
      SELECT coalesce(sum((data->'usage'->>'webSearchRequests')::int), 0)::int AS searches
      FROM ariadne_events WHERE run_id = ${runId} AND type = 'turn'`.execute(database.db),
  );
  return rows[0]?.searches ?? 0;
}
