import { crashPoint } from "../core/crashPoint.ts";
import type { Database } from "../db/openDatabase.ts";
import { reserveInLedger } from "../db/runBudgets.ts";
import { type BudgetTotals, toTotals } from "./budgetTotals.ts";
import { fenced } from "./fenced.ts";

export interface ReserveRequest {
  runId: string;
  executorId: string;
  tokens: number;
  costMicros: number;
  /** The executor's own token cap, checked against what it has settled. */
  executorMaxTokens: number;
  /** The host's lease epoch: a stale one is refused (FencedError) and nothing changes. */
  epoch?: number;
  /** The reservation's id: a call repeated after a lost reply reserves nothing more (migration 0014). */
  reservationId?: string;
}

export type ReserveResult =
  | { ok: true; totals: BudgetTotals; executorSpent: number }
  | { ok: false; totals: BudgetTotals; executorSpent: number }
  | { ok: false; totals: null; executorSpent: 0 };

/**
 * Reserves an amount against the run in one conditional UPDATE (ariadne_budget_reserve,
 * migrations 0004 and 0008): it fits under every cap given every other executor's
 * reservations and settles, or nothing changes. One round trip, no fsync.
 * `totals` is the row after a reservation, or as it stood when refused
 * (null: the run has no budget row). A lost connection is retried (db/runBudgets.ts).
 */
export async function reserveBudget(database: Database, r: ReserveRequest): Promise<ReserveResult> {
  const row = await fenced(r.runId, r.epoch, () => reserveInLedger(database, { ...r, opId: r.reservationId }));
  if (!row) return { ok: false, totals: null, executorSpent: 0 };
  // Fault tests: reserved in the ledger, not yet in the log, the model not yet called.
  if (row.ok) crashPoint("during:budget_reservation");
  return { ok: row.ok, totals: toTotals(row), executorSpent: Number(row.executor_spent) };
}
