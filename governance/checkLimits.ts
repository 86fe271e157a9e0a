import { DELEGATE_TOOL } from "../tools/index.ts";
import type { Caps, ExecutorCaps } from "./config.ts";
import type { BudgetTotals } from "./budgetTotals.ts";
import type { ExecutorView, ToolCallRequest } from "./executorView.ts";
import type { LimitName } from "./port.ts";
import type { FetchUsage } from "../db/fetchUsage.ts";

/** A limit that stops something, with the sentence saying how far the executor got. */
export interface Stop {
  limit: LimitName;
  reason: string;
}

export interface Clocks {
  now: Date;
  runOpenedAt: Date;
  executorAdmittedAt: Date;
  /** Time the run had no host since it opened / since the executor's admission (governance/hostedTime.ts); not counted. */
  runDownMs?: number;
  executorDownMs?: number;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");
const s = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Wall clocks of the run and of the executor: the checks before any call. They
 * count hosted time: the time the run had no host (a crash or an interrupt until
 * its resume) is not work and is not counted. Pure.
 */
export function clockStop(caps: Caps, executor: ExecutorCaps, t: Clocks): Stop | null {
  const runDown = t.runDownMs ?? 0;
  const run = t.now.getTime() - t.runOpenedAt.getTime() - runDown;
  if (run >= caps.run.wallClockMs) {
    return { limit: "run_wall_clock", reason: `run wall clock of ${s(caps.run.wallClockMs)} used (${s(run)} ${runDown > 0 ? "hosted " : ""}since the run started${notCounted(runDown)})` };
  }
  const ownDown = t.executorDownMs ?? 0;
  const own = t.now.getTime() - t.executorAdmittedAt.getTime() - ownDown;
  if (own >= executor.wallClockMs) {
    return { limit: "executor_wall_clock", reason: `wall clock of ${s(executor.wallClockMs)} used (${s(own)} ${ownDown > 0 ? "hosted " : ""}since admission${notCounted(ownDown)})` };
  }
  return null;
}

const notCounted = (down: number) => (down > 0 ? `; ${s(down)} while the run had no host are not counted` : "");

/** Before a model call: the executor's turns (its own count, and the limit frozen at its admission). Pure. */
export function turnStop(state: Pick<ExecutorView, "turn" | "limits">, executor: ExecutorCaps): Stop | null {
  const max = Math.min(executor.maxTurns, state.limits.maxTurns);
  return state.turn >= max ? { limit: "executor_turns", reason: `turn limit reached (${state.turn} of ${max} turns)` } : null;
}

/** Which cap a refused reservation would have broken; executor first, as the narrower one. Pure. */
export function reservationStop(totals: BudgetTotals, executorSpent: number, executorMaxTokens: number, amount: { tokens: number; costMicros: number }): Stop {
  if (executorSpent + amount.tokens > executorMaxTokens) {
    return { limit: "executor_tokens", reason: `token budget of ${n(executorMaxTokens)} for this executor: ${n(executorSpent)} used, the next call needs up to ${n(amount.tokens)}` };
  }
  if (totals.spentTokens + totals.reservedTokens + amount.tokens > totals.maxTokens) {
    return {
      limit: "run_tokens",
      reason: `run token budget of ${n(totals.maxTokens)}: ${n(totals.spentTokens)} used and ${n(totals.reservedTokens)} reserved, the next call needs up to ${n(amount.tokens)}`,
    };
  }
  return {
    limit: "run_cost",
    reason: `run cost cap of $${(totals.maxCostMicros / 1e6).toFixed(2)}: $${(totals.spentCostMicros / 1e6).toFixed(4)} spent and $${(totals.reservedCostMicros / 1e6).toFixed(4)} reserved, the next call may cost $${(amount.costMicros / 1e6).toFixed(4)}`,
  };
}

/**
 * Before a tool call: tool calls, and for a delegation depth and fan-out.
 * `pending` counts calls of this turn approved but not yet recorded (their
 * intents are appended together, after every call of the turn is checked). Pure.
 */
export function toolStop(
  state: Pick<ExecutorView, "toolCalls" | "limits" | "depth" | "children">,
  call: Pick<ToolCallRequest, "name">,
  caps: Caps,
  executor: ExecutorCaps,
  pending: { toolCalls: number; delegations: number },
): Stop | null {
  const maxCalls = Math.min(executor.maxToolCalls, state.limits.maxToolCalls);
  const used = state.toolCalls + pending.toolCalls;
  if (used >= maxCalls) return { limit: "executor_tool_calls", reason: `tool call limit reached (${used} of ${maxCalls} calls for this executor)` };
  if (call.name !== DELEGATE_TOOL) return null;
  if (state.depth + 1 > caps.delegation.maxDepth) {
    return { limit: "delegation_depth", reason: `a Child of this executor would be at depth ${state.depth + 1}; the run allows ${caps.delegation.maxDepth}` };
  }
  const children = Object.keys(state.children).length + pending.delegations;
  if (children >= caps.delegation.maxFanOut) {
    return { limit: "delegation_fan_out", reason: `fan-out limit reached (${children} of ${caps.delegation.maxFanOut} Children admitted by this executor)` };
  }
  return null;
}

/** Pages the run has read from the network so far, and their bytes (db/fetchUsage.ts reads them from the log). */
export type { FetchUsage };

export const WEB_FETCH = "web_fetch";

/**
 * The run's fetch budget, before a turn's web_fetch calls: the index of the
 * first call it stops (each allowed call counts against the ones after it;
 * a page already in the run's cache counts too, as the call cannot know), or
 * null. Bytes are known after a fetch, so the byte cap stops the calls after
 * the one that crossed it. Pure.
 */
export function fetchStop(used: FetchUsage, calls: readonly Pick<ToolCallRequest, "name">[], caps: Caps): { at: number; stop: Stop } | null {
  let fetches = used.fetches;
  for (const [i, call] of calls.entries()) {
    if (call.name !== WEB_FETCH) continue;
    if (used.bytes >= caps.fetch.maxBytes) {
      return { at: i, stop: { limit: "run_fetch_bytes", reason: `run fetch budget of ${mb(caps.fetch.maxBytes)} read (${mb(used.bytes)} in ${n(used.fetches)} pages)` } };
    }
    if (fetches >= caps.fetch.maxFetches) {
      return { at: i, stop: { limit: "run_fetches", reason: `run fetch budget of ${n(caps.fetch.maxFetches)} pages used (${n(fetches)} fetched or asked for)` } };
    }
    fetches++;
  }
  return null;
}

/**
 * The run's search budget, before a model call that may run server-side
 * searches (its max_uses): how many it may run, lowered to what is left of
 * the budget, or the stop once none is left (the executor finishes with what
 * it has, as at the fetch budget). Pure.
 */
export function searchAllowance(used: number, maxSearches: number, caps: Caps): { searches: number; stop: null } | { searches: 0; stop: Stop } {
  const left = caps.search.maxSearches - used;
  if (left <= 0) return { searches: 0, stop: { limit: "run_searches", reason: `run search budget of ${n(caps.search.maxSearches)} web searches used (${n(used)} run)` } };
  return { searches: Math.min(maxSearches, left), stop: null };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * A turn's tool calls, in the model's order: how many are allowed before a
 * limit stops the rest, and that stop. `state` is as recorded before the turn's
 * intents; each call allowed counts against the ones after it, once. Pure.
 */
export function turnToolStop(
  state: Pick<ExecutorView, "toolCalls" | "limits" | "depth" | "children">,
  calls: readonly Pick<ToolCallRequest, "name">[],
  caps: Caps,
  executor: ExecutorCaps,
): { allowed: number; stop: Stop | null } {
  const pending = { toolCalls: 0, delegations: 0 };
  for (const [i, call] of calls.entries()) {
    const stop = toolStop(state, call, caps, executor, pending);
    if (stop) return { allowed: i, stop };
    pending.toolCalls++;
    if (call.name === DELEGATE_TOOL) pending.delegations++;
  }
  return { allowed: calls.length, stop: null };
}
