import { sql } from "kysely";
import { NotFoundError } from "../core/errors.ts";
import type { EventStore } from "../events/index.ts";

/**
 * Gives a run that has events but no row (started before runs had rows) a row
 * of its own, as interrupted, so it can be resumed or cancelled. Main is the
 * executor admitted with the role main.
 */
export async function adoptRun(store: EventStore, runId: string): Promise<void> {
  const main = await sql<{ executor_id: string; question: string }>`
    SELECT executor_id, data->'task'->>'question' AS question FROM ariadne_events
    WHERE run_id = ${runId} AND type = 'executor_admitted' AND data->>'role' = 'main'
    ORDER BY global_position LIMIT 1`.execute(store.database.db);
  const row = main.rows[0];
  if (!row) throw new NotFoundError(`no run ${runId} (ariadne submit and ariadne run print run ids)`);
  await sql`
    INSERT INTO ariadne_runs (run_id, main_executor_id, question, options, state)
    VALUES (${runId}, ${row.executor_id}, ${row.question}, '{}'::jsonb, 'interrupted')
    ON CONFLICT (run_id) DO NOTHING`.execute(store.database.db);
}
