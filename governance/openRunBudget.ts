import type { Database } from "../db/openDatabase.ts";
import { insertBudgetRow, selectBudgetRow } from "../db/runBudgets.ts";
import { type Caps, parseCaps } from "./config.ts";
import { type BudgetTotals, toTotals } from "./budgetTotals.ts";

export interface RunBudget {
  runId: string;
  caps: Caps;
  openedAt: Date;
  totals: BudgetTotals;
  openReservations: number;
  /** Settled tokens per executor id. */
  executorSpent: Record<string, number>;
}

/**
 * Creates the run's budget row at the run's start, with its resolved caps. A
 * second call for the same run changes nothing and returns the row as it is:
 * the caps a run started with are the caps it keeps.
 */
export async function openRunBudget(database: Database, runId: string, caps: Caps, openedAt: Date = new Date()): Promise<RunBudget> {
  const checked = parseCaps(caps);
  await insertBudgetRow(database, { runId, caps: checked, maxTokens: checked.run.maxTokens, maxCostMicros: checked.run.maxCostMicros, openedAt });
  const budget = await readRunBudget(database, runId);
  if (!budget) throw new Error(`the budget row of run ${runId} vanished after it was opened`);
  return budget;
}

/** The run's budget row, or null when the run has none. */
export async function readRunBudget(database: Database, runId: string): Promise<RunBudget | null> {
  const row = await selectBudgetRow(database, runId);
  if (!row) return null;
  const spent = (typeof row.executor_spent === "string" ? JSON.parse(row.executor_spent) : row.executor_spent) as Record<string, unknown>;
  return {
    runId,
    caps: parseCaps(typeof row.caps === "string" ? JSON.parse(row.caps) : row.caps),
    openedAt: new Date(row.opened_at),
    totals: toTotals(row),
    openReservations: Number(row.open_reservations),
    executorSpent: Object.fromEntries(Object.entries(spent).map(([id, tokens]) => [id, Number(tokens)])),
  };
}
