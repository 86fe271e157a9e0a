import type { LedgerAmounts } from "../db/runBudgets.ts";

/** A run's budget as its ledger row stands: what is spent, what is reserved, and the caps. */
export interface BudgetTotals {
  spentTokens: number;
  reservedTokens: number;
  maxTokens: number;
  spentCostMicros: number;
  reservedCostMicros: number;
  maxCostMicros: number;
}

/** The amounts of the ledger's row (db/runBudgets.ts), bigint columns as stored. */
export type BudgetRow = LedgerAmounts;

const COLUMNS: Record<keyof LedgerAmounts, keyof BudgetTotals> = {
  spent_tokens: "spentTokens",
  reserved_tokens: "reservedTokens",
  max_tokens: "maxTokens",
  spent_cost_micros: "spentCostMicros",
  reserved_cost_micros: "reservedCostMicros",
  max_cost_micros: "maxCostMicros",
};

/** bigint columns arrive as text (pg) or bigint (PGlite); the amounts fit a double exactly. */
export function toTotals(row: BudgetRow): BudgetTotals {
  const totals = {} as BudgetTotals;
  for (const [column, field] of Object.entries(COLUMNS)) totals[field] = Number(row[column as keyof BudgetRow]);
  return totals;
}
