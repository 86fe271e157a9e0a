import type { Draft } from "../events/draft.ts";
import type { ExecutorView, ToolCallRequest } from "./executorView.ts";
import type { PricedUsage } from "./prices.ts";

export type { ExecutorView, ToolCallRequest } from "./executorView.ts";
/** Governance answers with drafts (events/draft.ts), so every decision it takes is recorded with what it decided about. */
export type { Draft } from "../events/draft.ts";

/** What a model call will cost at worst, known before it is made. */
export interface ModelCallPlan {
  model: string;
  /** Input tokens of the request (estimated before the call). */
  inputTokens: number;
  /** The request's max_tokens: the worst case for output. */
  maxTokens: number;
  /** Server-side web searches the call may run (its max_uses; absent: it offers none). */
  maxSearches?: number;
}

/** A reservation taken against the run before a model call; settled after it. */
export interface Reservation {
  reservationId: string;
  model: string;
  tokens: number;
  costMicros: number;
}

/** The limit that stopped something, named so a caveat can say how far the executor got. */
export type LimitName =
  | "run_tokens"
  | "run_cost"
  | "run_wall_clock"
  | "executor_tokens"
  | "executor_turns"
  | "executor_tool_calls"
  | "executor_wall_clock"
  | "delegation_depth"
  | "delegation_fan_out"
  | "run_fetches"
  | "run_fetch_bytes"
  | "run_searches";

export type Verdict<T = unknown> =
  | ({ ok: true; events: Draft[] } & T)
  | { ok: false; limit: LimitName; reason: string; events: Draft[] };

/**
 * Governance in code: an async port consulted before every model call, after
 * it to settle, and before a turn's tool calls. It never throws for a refusal;
 * it answers with a verdict and the events that record it. It is given the
 * executor as its log has it (ExecutorView) and keeps no memory of its own
 * between calls (beyond a settle still being written): a decision that needs a
 * fact finds it in the log.
 */
export interface Governance {
  /**
   * `deadline` (epoch ms), when given, is when the executor's or the run's wall
   * clock runs out: the model call, its retries and the waits between them stop there.
   * `searches`, when the plan may search, is how many server-side searches the
   * call may run: its max_uses, lowered to what is left of the run's search budget.
   */
  beforeModelCall(executor: ExecutorView, plan: ModelCallPlan): Promise<Verdict<{ reservation: Reservation | null; deadline?: number; searches?: number }>>;
  /**
   * Settles the real usage (null when the call failed and spent nothing
   * measurable) and releases the rest. When the drafts do not depend on the
   * ledger's answer (a Child's), the settle may still be written as the turn
   * is appended; the executor's next beforeModelCall waits for it.
   */
  afterModelCall(
    executor: ExecutorView,
    reservation: Reservation | null,
    usage: PricedUsage | null,
  ): Promise<Draft[]>;
  /**
   * Decides a turn's tool calls together, before any runs: one verdict per
   * call, in the model's order. `executor` is as recorded before the turn's
   * intents, so each call allowed counts against the calls after it; after a
   * refusal the rest of the turn is refused for the same limit (its events ride
   * with the first refusal only).
   */
  beforeToolCalls(executor: ExecutorView, calls: readonly ToolCallRequest[]): Promise<Verdict[]>;
}
