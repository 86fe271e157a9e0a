import { sql } from "kysely";
import { NotFoundError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import type { RunRowState } from "./lease/runLease.ts";

export interface RunRow {
  runId: string;
  mainExecutorId: string;
  question: string;
  state: RunRowState;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** Milliseconds until the lease runs out, by the database's clock (negative: expired). */
  leaseRemainingMs: number | null;
  /** Milliseconds since the lease was last taken or renewed (the owner's heartbeat), by the database's clock. */
  heartbeatAgeMs: number | null;
  epoch: number;
}

/** The run's row in ariadne_runs; NotFoundError naming the id when there is none. */
export async function findRun(database: Database, runId: string): Promise<RunRow> {
  const r = await sql<{
    run_id: string;
    main_executor_id: string;
    question: string;
    state: RunRowState;
    lease_owner: string | null;
    lease_expires_at: Date | string | null;
    remaining_ms: number | string | null;
    heartbeat_age_ms: number | string | null;
    epoch: string | number;
  }>`
    SELECT run_id, main_executor_id, question, state, lease_owner, lease_expires_at, epoch,
           (extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS remaining_ms,
           (extract(epoch FROM now() - lease_renewed_at) * 1000)::float8 AS heartbeat_age_ms
    FROM ariadne_runs WHERE run_id = ${runId}`.execute(database.db);
  const row = r.rows[0];
  if (!row) throw new NotFoundError(`no run ${runId} (ariadne submit and ariadne run print run ids)`);
  return {
    runId: row.run_id,
    mainExecutorId: row.main_executor_id,
    question: row.question,
    state: row.state,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
    leaseRemainingMs: row.remaining_ms === null ? null : Number(row.remaining_ms),
    heartbeatAgeMs: row.heartbeat_age_ms === null ? null : Number(row.heartbeat_age_ms),
    epoch: Number(row.epoch),
  };
}

/** The state of the run's row, or null when it has none (a run written before runs had rows). */
export async function runRowState(database: Database, runId: string): Promise<RunRowState | null> {
  const row = await database.db.selectFrom("ariadne_runs").select("state").where("run_id", "=", runId).executeTakeFirst();
  return row?.state ?? null;
}
