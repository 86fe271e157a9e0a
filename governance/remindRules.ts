import type { BudgetTotals } from "./budgetTotals.ts";
import { REMIND_THRESHOLDS } from "./config.ts";

/**
 * Remind: objective facts about the run, raised for Main as `reminder_raised`.
 * Pure rules: given what is known, which facts are new. A fact has a stable key
 * (the same fact always gets the same key, so it is raised once per run);
 * different facts have different keys and coexist.
 */
export interface Reminder {
  key: string;
  text: string;
  facts: Record<string, string | number | boolean>;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");
const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;
const pct = (t: number) => Math.round(t * 100);
const minutes = (ms: number) => `${Math.round(ms / 60_000 * 10) / 10} min`;

export const thresholdKey = (measure: string, threshold: number) => `${measure}@${pct(threshold)}`;

/**
 * The highest threshold a measure has reached, unless it (or a higher one) was
 * raised already: jumping from 40% to 85% raises the 80% fact only.
 */
function crossed(measure: string, used: number, cap: number, raised: ReadonlySet<string>, thresholds: readonly number[]): number | null {
  const sorted = [...thresholds].sort((a, b) => b - a);
  const reached = sorted.find((t) => used >= t * cap);
  if (reached === undefined) return null;
  return sorted.some((t) => t >= reached && raised.has(thresholdKey(measure, t))) ? null : reached;
}

/** Run tokens and cost at 50% and 80% (by default) of their caps, counted from what was settled. */
export function budgetReminders(totals: BudgetTotals, raised: ReadonlySet<string>, thresholds = REMIND_THRESHOLDS): Reminder[] {
  const out: Reminder[] = [];
  const tokens = crossed("run_tokens", totals.spentTokens, totals.maxTokens, raised, thresholds);
  if (tokens !== null) {
    out.push({
      key: thresholdKey("run_tokens", tokens),
      text: `Budget: the run has used ${n(totals.spentTokens)} of its ${n(totals.maxTokens)} tokens (${pct(totals.spentTokens / totals.maxTokens)}%, past ${pct(tokens)}%); ${n(Math.max(0, totals.maxTokens - totals.spentTokens))} are left for every executor together.`,
      facts: { measure: "run_tokens", threshold: tokens, used: totals.spentTokens, cap: totals.maxTokens },
    });
  }
  const cost = crossed("run_cost", totals.spentCostMicros, totals.maxCostMicros, raised, thresholds);
  if (cost !== null) {
    out.push({
      key: thresholdKey("run_cost", cost),
      text: `Budget: the run has cost ${usd(totals.spentCostMicros)} of its ${usd(totals.maxCostMicros)} cap (${pct(totals.spentCostMicros / totals.maxCostMicros)}%, past ${pct(cost)}%).`,
      facts: { measure: "run_cost", threshold: cost, usedMicros: totals.spentCostMicros, capMicros: totals.maxCostMicros },
    });
  }
  return out;
}

/** Time left: the run's wall clock at 50% and 80% (by default). */
export function timeReminders(
  run: { openedAt: Date; wallClockMs: number; downMs?: number },
  now: Date,
  raised: ReadonlySet<string>,
  thresholds = REMIND_THRESHOLDS,
): Reminder[] {
  // Hosted time: the time the run had no host is not counted (governance/hostedTime.ts).
  const elapsed = Math.max(0, now.getTime() - run.openedAt.getTime() - (run.downMs ?? 0));
  const reached = crossed("run_wall_clock", elapsed, run.wallClockMs, raised, thresholds);
  if (reached === null) return [];
  return [
    {
      key: thresholdKey("run_wall_clock", reached),
      text: `Time: ${minutes(elapsed)} of the run's ${minutes(run.wallClockMs)} have passed (past ${pct(reached)}%); about ${minutes(Math.max(0, run.wallClockMs - elapsed))} are left.`,
      facts: { measure: "run_wall_clock", threshold: reached, elapsedMs: elapsed, capMs: run.wallClockMs },
    },
  ];
}

/** What a parent knows of its Children: consumed ones have a result (a handoff, or none when the call failed). */
export type ChildrenView = Readonly<Record<string, { consumed: boolean; handoff?: Record<string, unknown> }>>;

/** A Child finished (its handoff completed) or stopped early (partial, not executed, or no handoff at all). */
export function childReminders(children: ChildrenView, raised: ReadonlySet<string>): Reminder[] {
  const out: Reminder[] = [];
  for (const [childId, child] of Object.entries(children)) {
    if (!child.consumed) continue;
    const state = typeof child.handoff?.executionState === "string" ? child.handoff.executionState : null;
    const confidence = typeof child.handoff?.confidence === "string" ? child.handoff.confidence : "unknown";
    if (state === "completed") {
      const key = `child_finished:${childId}`;
      if (!raised.has(key)) {
        out.push({ key, text: `Child ${childId} finished: its handoff is complete (confidence ${confidence}).`, facts: { childExecutorId: childId, executionState: state, confidence } });
      }
      continue;
    }
    const key = `child_stopped_early:${childId}`;
    if (raised.has(key)) continue;
    out.push({
      key,
      text: state
        ? `Child ${childId} stopped early: its handoff is ${state.replace("_", " ")} (confidence ${confidence}); check its gaps before relying on it.`
        : `Child ${childId} stopped early without a handoff.`,
      facts: { childExecutorId: childId, executionState: state ?? "none", confidence },
    });
  }
  return out;
}

/** A Child refused by a limit: it will hand off what it has. */
export function childLimitReminder(child: { executorId: string; profile: { id: string } | null }, limit: string, reason: string): Reminder {
  return {
    key: `child_limit:${child.executorId}:${limit}`,
    text: `Child ${child.executorId}${child.profile ? ` (${child.profile.id})` : ""} reached a limit: ${reason}. It will hand off what it has.`,
    facts: { childExecutorId: child.executorId, limit, reason },
  };
}
