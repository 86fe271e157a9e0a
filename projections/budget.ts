import type { RecordedEvent } from "../events/index.ts";
import { intentOf } from "../events/toolIntent.ts";
import { type Projection, executorStreamOf, fieldsOf, numberOr } from "./projection.ts";

/** What budgets count: model tokens and cost (micro-units of currency). */
export interface Amounts {
  tokens: number;
  costMicros: number;
}

export interface Caps {
  tokens: number | null;
  costMicros: number | null;
}

export interface ExecutorBudget {
  /** Still held by open reservations. */
  reserved: Amounts;
  /** Settled usage. */
  spent: Amounts;
  openReservations: number;
  settledReservations: number;
  /** Reservations and tool calls governance refused (`budget_refused`), by the limit named. */
  refusals: Record<string, number>;
  /** Turns and tool calls used, against the limits frozen at admission. */
  turns: number;
  toolCalls: number;
  limits: { turns: number | null; toolCalls: number | null; tokens: number | null };
}

export interface BudgetState {
  run: { reserved: Amounts; spent: Amounts; caps: Caps; capsAt: number; refusals: Record<string, number> };
  executors: Record<string, ExecutorBudget>;
  /** Open reservations by id, with who holds them. */
  open: Record<string, { executorId: string; amount: Amounts }>;
  /** Settled reservation ids: a settlement read before its reservation (another stream) closes it. */
  settled: Record<string, "matched" | "unmatched">;
  /** Settlements that named no reservation seen so far. */
  unmatchedSettlements: number;
}

const ZERO: Amounts = { tokens: 0, costMicros: 0 };
const add = (a: Amounts, b: Amounts): Amounts => ({ tokens: a.tokens + b.tokens, costMicros: a.costMicros + b.costMicros });
const sub = (a: Amounts, b: Amounts): Amounts => ({ tokens: a.tokens - b.tokens, costMicros: a.costMicros - b.costMicros });

/** The catalogue's Amount plus `costMicros` (added by governance); a missing field counts as 0. */
export function amountOf(value: unknown): Amounts {
  const v = (value ?? {}) as Record<string, unknown>;
  return { tokens: numberOr(v.tokens, 0), costMicros: numberOr(v.costMicros, 0) };
}

const capOf = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

const emptyExecutor = (): ExecutorBudget => ({
  reserved: ZERO,
  spent: ZERO,
  openReservations: 0,
  settledReservations: 0,
  refusals: {},
  turns: 0,
  toolCalls: 0,
  limits: { turns: null, toolCalls: null, tokens: null },
});

/**
 * Budget per run and per executor: reserved (open reservations), spent (settled
 * usage), turns and tool calls against the executor's frozen limits. A
 * reservation and its settlement are matched by id; the sums do not depend on
 * the order streams are read in. Run caps come from run_submitted (options.caps.run), or the latest run fact carrying
 * `caps: { tokens?, costMicros? }` (by log position); none means unknown.
 */
export const budget: Projection<BudgetState> = {
  name: "budget",
  initial: () => ({
    run: { reserved: ZERO, spent: ZERO, caps: { tokens: null, costMicros: null }, capsAt: 0, refusals: {} },
    executors: {},
    open: {},
    settled: {},
    unmatchedSettlements: 0,
  }),
  evolve(state, event) {
    const type: string = event.type;
    const executorId = event.metadata.executorId;
    const ex = () => state.executors[executorId] ?? emptyExecutor();
    const withExecutor = (s: BudgetState, e: ExecutorBudget): BudgetState => ({ ...s, executors: { ...s.executors, [executorId]: e } });
    // The run's caps as submitted (run_submitted options.caps.run), or any later run fact carrying caps.
    const submitted = type === "run_submitted" ? (fieldsOf(event).options as { caps?: { run?: { maxTokens?: unknown; maxCostMicros?: unknown } } } | undefined)?.caps?.run : undefined;
    const caps = submitted ? { tokens: submitted.maxTokens, costMicros: submitted.maxCostMicros } : fieldsOf(event).caps;
    if (caps && typeof caps === "object" && event.globalPosition > state.run.capsAt) {
      const c = caps as Record<string, unknown>;
      state = { ...state, run: { ...state.run, caps: { tokens: capOf(c.tokens), costMicros: capOf(c.costMicros) }, capsAt: event.globalPosition } };
    }
    switch (type) {
      case "executor_admitted": {
        const limits = fieldsOf(event).limits as Record<string, unknown>;
        return withExecutor(state, {
          ...ex(),
          limits: { turns: capOf(limits.maxTurns), toolCalls: capOf(limits.maxToolCalls), tokens: capOf(limits.maxTokens) },
        });
      }
      case "turn":
        return executorStreamOf(event) ? withExecutor(state, { ...ex(), turns: ex().turns + 1 }) : state;
      case "tool_called":
      // A read-only call in one row: its outcome carries the intent, counted the same.
      case "tool_completed":
      case "tool_failed":
        return executorStreamOf(event) && intentOf(event) ? withExecutor(state, { ...ex(), toolCalls: ex().toolCalls + 1 }) : state;
      case "budget_reserved": {
        const d = fieldsOf(event);
        const id = String(d.reservationId);
        if (state.open[id] || state.settled[id] === "matched") return state;
        // Its settlement was read first (another stream): now it is matched, and nothing stays reserved.
        if (state.settled[id] === "unmatched") {
          return { ...state, settled: { ...state.settled, [id]: "matched" }, unmatchedSettlements: state.unmatchedSettlements - 1 };
        }
        const amount = amountOf(d.amount);
        const e = ex();
        return withExecutor(
          { ...state, open: { ...state.open, [id]: { executorId, amount } }, run: { ...state.run, reserved: add(state.run.reserved, amount) } },
          { ...e, reserved: add(e.reserved, amount), openReservations: e.openReservations + 1 },
        );
      }
      case "budget_settled": {
        const d = fieldsOf(event);
        const id = String(d.reservationId);
        if (state.settled[id]) return state;
        const actual = amountOf(d.actual);
        const held = state.open[id];
        const open = { ...state.open };
        delete open[id];
        let next: BudgetState = {
          ...state,
          open,
          settled: { ...state.settled, [id]: held ? "matched" : "unmatched" },
          unmatchedSettlements: state.unmatchedSettlements + (held ? 0 : 1),
          run: { ...state.run, reserved: held ? sub(state.run.reserved, held.amount) : state.run.reserved, spent: add(state.run.spent, actual) },
        };
        if (held) {
          const holder = next.executors[held.executorId] ?? emptyExecutor();
          next = {
            ...next,
            executors: {
              ...next.executors,
              [held.executorId]: { ...holder, reserved: sub(holder.reserved, held.amount), openReservations: holder.openReservations - 1 },
            },
          };
        }
        const e = next.executors[executorId] ?? emptyExecutor();
        return withExecutor(next, { ...e, spent: add(e.spent, actual), settledReservations: e.settledReservations + 1 });
      }
      case "budget_refused": {
        const limit = String(fieldsOf(event).limit ?? "unknown");
        const e = ex();
        return withExecutor(
          { ...state, run: { ...state.run, refusals: countIn(state.run.refusals, limit) } },
          { ...e, refusals: countIn(e.refusals, limit) },
        );
      }
      default:
        return state;
    }
  },
};

const countIn = (counts: Record<string, number>, key: string) => ({ ...counts, [key]: (counts[key] ?? 0) + 1 });

/** What is left of a cap after what is spent and still reserved; null when the cap is unknown. */
export const leftOf = (cap: number | null, spent: number, reserved = 0): number | null => (cap === null ? null : cap - spent - reserved);
