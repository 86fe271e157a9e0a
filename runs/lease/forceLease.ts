import { sql } from "kysely";
import type { Database } from "../../db/openDatabase.ts";
import { type RunLease, RunOptions, type RunRowState } from "./runLease.ts";

/**
 * Takes a run whatever its lease (an operator's cancel): waits for the row
 * lock, so an append in flight commits first, then raises the epoch, which
 * fences the previous owner from its next append on. Null for a finished run.
 */
export async function forceLease(
  database: Database,
  options: { runId: string; owner: string; ttlMs: number },
): Promise<{ lease: RunLease; previousState: RunRowState } | null> {
  return database.db.transaction().execute(async (trx) => {
    const found = await sql<{ state: RunRowState }>`
      SELECT state FROM ariadne_runs WHERE run_id = ${options.runId} AND state <> 'finished' FOR UPDATE`.execute(trx);
    if (!found.rows[0]) return null;
    const t = (
      await sql<{ main_executor_id: string; question: string; options: unknown; epoch: string }>`
        UPDATE ariadne_runs
        SET state = 'running', lease_owner = ${options.owner}, epoch = epoch + 1,
            lease_expires_at = now() + make_interval(secs => ${options.ttlMs / 1000}), lease_renewed_at = now()
        WHERE run_id = ${options.runId}
        RETURNING main_executor_id, question, options, epoch`.execute(trx)
    ).rows[0];
    const previousState = found.rows[0].state;
    return {
      previousState,
      lease: {
        runId: options.runId,
        mainExecutorId: t.main_executor_id,
        question: t.question,
        options: RunOptions.parse(t.options),
        owner: options.owner,
        epoch: Number(t.epoch),
        fresh: previousState === "submitted",
      },
    };
  });
}
