import { sql } from "kysely";
import { quarantinedRuns } from "../../db/quarantine.ts";
import { crashPoint } from "../../core/crashPoint.ts";
import type { Database } from "../../db/openDatabase.ts";
import { type RunLease, RunOptions } from "./runLease.ts";

export interface TakeLeaseOptions {
  owner: string;
  ttlMs: number;
  /** Take this run only; otherwise the oldest takeable run. */
  runId?: string;
  /** Also take an interrupted run (an operator's resume), and a running one whose owner is this owner string. */
  interrupted?: boolean;
  /** Owners known to be dead (same host, no such process): their leases count as expired. */
  deadOwner?: string | null;
  /**
   * Runs not to take: those the caller hosts already. A worker whose heartbeat
   * was late must not take its own run over (a second hosting beside the first).
   */
  skip?: readonly string[];
}

/**
 * Takes a run: a submitted one, or a running one whose lease expired or was
 * released (no expiry). The row
 * is locked with FOR UPDATE SKIP LOCKED (workers never wait on each other, and
 * a run with an append in flight is skipped until it commits), and the epoch
 * goes up by one, which fences every append of the previous owner.
 */
// A quarantined run (db/quarantine.ts: its log lost rows) is never taken: hosting it would fold a log with a hole.
export async function takeLease(database: Database, options: TakeLeaseOptions): Promise<RunLease | null> {
  return database.db.transaction().execute(async (trx) => {
    const found = await sql<{ run_id: string; state: string }>`
      SELECT run_id, state FROM ariadne_runs
      WHERE (state = 'submitted'
             OR (state = 'running' AND (lease_expires_at IS NULL OR lease_expires_at <= now() OR lease_owner = ${options.deadOwner ?? null}))
             OR (state = 'interrupted' AND ${options.interrupted ?? false}))
        AND (${options.runId ?? null}::text IS NULL OR run_id = ${options.runId ?? null})
        AND NOT (run_id = ANY(${[...(options.skip ?? []), ...quarantinedRuns(database)]}::text[]))
      ORDER BY created_at
      LIMIT 1
      FOR UPDATE SKIP LOCKED`.execute(trx);
    const row = found.rows[0];
    if (!row) return null;
    crashPoint("during:lease_takeover");
    const taken = await sql<{ run_id: string; main_executor_id: string; question: string; options: unknown; epoch: string }>`
      UPDATE ariadne_runs
      SET state = 'running', lease_owner = ${options.owner}, epoch = epoch + 1,
          lease_expires_at = now() + make_interval(secs => ${options.ttlMs / 1000}), lease_renewed_at = now()
      WHERE run_id = ${row.run_id}
      RETURNING run_id, main_executor_id, question, options, epoch`.execute(trx);
    const t = taken.rows[0];
    return {
      runId: t.run_id,
      mainExecutorId: t.main_executor_id,
      question: t.question,
      options: RunOptions.parse(t.options),
      owner: options.owner,
      epoch: Number(t.epoch),
      fresh: row.state === "submitted",
    };
  });
}
