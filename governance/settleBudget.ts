import type { Database } from "../db/openDatabase.ts";
import { settleInLedger } from "../db/runBudgets.ts";
import { type BudgetTotals, toTotals } from "./budgetTotals.ts";
import { fenced } from "./fenced.ts";

export interface SettleRequest {
  runId: string;
  executorId: string;
  /** What was reserved, released in full. */
  reserved: { tokens: number; costMicros: number };
  /** What the call really spent. */
  actual: { tokens: number; costMicros: number };
  /** The host's lease epoch: a stale one is refused (FencedError) and nothing changes. */
  epoch?: number;
  /** The reservation settled: a call repeated after a lost reply counts nothing twice (migration 0014). */
  reservationId?: string;
}

/**
 * Releases a reservation and records what was really spent, in one UPDATE
 * (ariadne_budget_settle, migration 0004). Returns the run's totals after it.
 * The truth is recorded even when it exceeds the reservation (the request's
 * input tokens are an estimate), so spent can pass a cap by that error only.
 */
export async function settleBudget(database: Database, s: SettleRequest): Promise<BudgetTotals> {
  const row = await fenced(s.runId, s.epoch, () => settleInLedger(database, { ...s, opId: s.reservationId }));
  if (!row) throw new Error(`run ${s.runId} has no budget row to settle against`);
  return toTotals(row);
}
