import { sql } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "./openDatabase.ts";

/**
 * Recovery: after the run's owner died, its open reservations are released and
 * what was spent is recomputed from the `budget_settled` events in the log (a
 * settle is durable only there). Reminder keys claimed but never recorded as
 * `reminder_raised` are freed, so the fact can be raised again. Call it only
 * when no executor of the run is live (a host calls it when it takes a run
 * over and again when the run ends). One transaction, so it is retried whole
 * across a lost connection.
 */
export async function releaseOpenReservations(database: Database, runId: string): Promise<void> {
  await retryOnConnectionLoss(`release the open reservations of run ${runId}`, () => database.db.transaction().execute(async (tx) => {
    await sql`
      WITH settles AS (
        SELECT executor_id,
               COALESCE(SUM((data->'actual'->>'tokens')::bigint), 0) AS tokens,
               COALESCE(SUM((data->'actual'->>'costMicros')::bigint), 0) AS cost
        FROM ariadne_events WHERE run_id = ${runId} AND type = 'budget_settled'
        GROUP BY executor_id
      )
      UPDATE ariadne_run_budgets b
      SET reserved_tokens = 0,
          reserved_cost_micros = 0,
          open_reservations = 0,
          open_ops = '{}',
          spent_tokens = (SELECT COALESCE(SUM(tokens), 0) FROM settles),
          spent_cost_micros = (SELECT COALESCE(SUM(cost), 0) FROM settles),
          executor_spent = (SELECT COALESCE(jsonb_object_agg(executor_id, tokens), '{}'::jsonb) FROM settles)
      WHERE b.run_id = ${runId}`.execute(tx);
    await sql`
      DELETE FROM ariadne_run_reminders r
      WHERE r.run_id = ${runId}
        AND NOT EXISTS (SELECT 1 FROM ariadne_events e
                        WHERE e.run_id = ${runId} AND e.type = 'reminder_raised' AND e.data->>'key' = r.key)`.execute(tx);
  }));
}
