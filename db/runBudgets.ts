import { sql } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "./openDatabase.ts";

/**
 * The budget ledger's table (ariadne_run_budgets, migrations 0004 and 0008) and
 * its two stored functions. Rows come back as stored; governance/ reads them
 * into caps and totals, and turns a stale epoch (AR409) into a FencedError.
 *
 * Every call rides out a lost connection (a server restart): retried with
 * backoff (core/connectionLoss.ts), then DatabaseUnavailableError. Inserting the
 * row and reading it are safe to repeat; reserve and settle are made so by their
 * operation id (migration 0014): a retry of a call that committed but whose
 * reply was lost changes nothing.
 */

/** The amounts of a ledger row: bigint columns arrive as text (pg) or bigint (PGlite). */
export type LedgerAmounts = Record<"spent_tokens" | "reserved_tokens" | "max_tokens" | "spent_cost_micros" | "reserved_cost_micros" | "max_cost_micros", string | number | bigint>;

export interface LedgerRow extends LedgerAmounts {
  caps: unknown;
  opened_at: Date | string;
  open_reservations: number | string;
  executor_spent: unknown;
}

/** Inserts the run's row unless it has one: the caps a run started with are the caps it keeps. */
export async function insertBudgetRow(
  database: Database,
  row: { runId: string; caps: unknown; maxTokens: number; maxCostMicros: number; openedAt: Date },
): Promise<void> {
  await retryOnConnectionLoss(`open the budget of run ${row.runId}`, () => sql`
    INSERT INTO ariadne_run_budgets (run_id, caps, max_tokens, max_cost_micros, opened_at)
    VALUES (${row.runId}, ${JSON.stringify(row.caps)}::jsonb, ${row.maxTokens}, ${row.maxCostMicros}, ${row.openedAt.toISOString()}::timestamptz)
    ON CONFLICT (run_id) DO NOTHING`.execute(database.db));
}

export async function selectBudgetRow(database: Database, runId: string): Promise<LedgerRow | null> {
  const { rows } = await retryOnConnectionLoss(`read the budget of run ${runId}`, () =>
    sql<LedgerRow>`SELECT * FROM ariadne_run_budgets WHERE run_id = ${runId}`.execute(database.db),
  );
  return rows[0] ?? null;
}

/**
 * One conditional UPDATE (ariadne_budget_reserve); undefined when the run has no
 * row. With `opId` (the reservation's id) a repeated call answers as the first
 * did and reserves nothing more.
 */
export async function reserveInLedger(
  database: Database,
  r: { runId: string; executorId: string; tokens: number; costMicros: number; executorMaxTokens: number; epoch?: number; opId?: string },
): Promise<(LedgerAmounts & { ok: boolean; executor_spent: string | number | bigint }) | undefined> {
  const { rows } = await retryOnConnectionLoss(`reserve budget for ${r.executorId}`, () =>
    sql<LedgerAmounts & { ok: boolean; executor_spent: string | number | bigint }>`
    SELECT * FROM ariadne_budget_reserve(${r.runId}, ${r.executorId}, ${r.tokens}, ${r.costMicros}, ${r.executorMaxTokens}, ${r.epoch ?? null}, ${r.opId ?? null})`.execute(
      database.db,
    ),
  );
  return rows[0];
}

/**
 * One UPDATE (ariadne_budget_settle); undefined when the run has no row. With
 * `opId` a repeated call counts nothing twice.
 */
export async function settleInLedger(
  database: Database,
  s: { runId: string; executorId: string; reserved: { tokens: number; costMicros: number }; actual: { tokens: number; costMicros: number }; epoch?: number; opId?: string },
): Promise<LedgerAmounts | undefined> {
  const { rows } = await retryOnConnectionLoss(`settle budget for ${s.executorId}`, () =>
    sql<LedgerAmounts>`
    SELECT * FROM ariadne_budget_settle(${s.runId}, ${s.executorId}, ${s.reserved.tokens}, ${s.reserved.costMicros},
                                        ${s.actual.tokens}, ${s.actual.costMicros}, ${s.epoch ?? null}, ${s.opId ?? null})`.execute(database.db),
  );
  return rows[0];
}
