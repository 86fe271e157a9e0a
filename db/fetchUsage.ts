import { sql } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "./openDatabase.ts";

/** A run's pages read from the network and their bytes (governance/checkLimits.ts stops fetches over its caps). */
export interface FetchUsage {
  fetches: number;
  bytes: number;
}

/**
 * The pages a run's web_fetch calls read from the network, and their bytes,
 * from the log: each page once by its URL and fetch time (a page served again
 * from the run's cache keeps both), summed over every executor of the run.
 */
export async function fetchUsage(database: Database, runId: string): Promise<FetchUsage> {
  const { rows } = await retryOnConnectionLoss(`read the fetches of run ${runId}`, () =>
    sql<{ fetches: number; bytes: string | number }>`
      SELECT count(*)::int AS fetches, coalesce(sum(bytes), 0)::bigint AS bytes FROM (
        SELECT DISTINCT s->>'normalizedUrl' AS url, s->>'fetchedAt' AS at, (s->>'bytes')::bigint AS bytes
        FROM ariadne_events e, jsonb_array_elements(e.data->'sources') s
        WHERE e.run_id = ${runId} AND e.type = 'tool_completed' AND e.data->>'tool' = 'web_fetch'
      ) f`.execute(database.db),
  );
  return { fetches: rows[0]?.fetches ?? 0, bytes: Number(rows[0]?.bytes ?? 0) };
}
