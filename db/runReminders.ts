import { sql } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "./openDatabase.ts";

/**
 * Claims reminder keys for a run: returns the keys this call claimed, leaving
 * out those raised before (by any executor, in any process). The primary key
 * makes a key claimable once per run. A lost connection is retried; a claim
 * whose reply was lost finds its keys taken on retry, so that reminder is not
 * raised (a fact missed, never one raised twice), and the keys are freed again
 * by releaseOpenReservations when the run is next taken over.
 */
export async function claimReminderKeys(database: Database, runId: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await retryOnConnectionLoss(`claim reminder keys of run ${runId}`, () =>
    sql<{ key: string }>`
    INSERT INTO ariadne_run_reminders (run_id, key)
    SELECT ${runId}, k FROM jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) AS k
    ON CONFLICT DO NOTHING
    RETURNING key`.execute(database.db),
  );
  return new Set(rows.map((r) => r.key));
}

/** Gives keys back when their reminders could not be recorded, so they may be raised again. */
export async function unclaimReminderKeys(database: Database, runId: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await retryOnConnectionLoss(`free reminder keys of run ${runId}`, () =>
    sql`
    DELETE FROM ariadne_run_reminders
    WHERE run_id = ${runId} AND key IN (SELECT jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb))`.execute(database.db),
  );
}
