import { type Amounts, type Caps, leftOf } from "./budget.ts";
import { type ExecutorProgress, executorsInOrder } from "./executorProgress.ts";
import { type ExecutorNode, executorTree, orphansOf } from "./executorTree.ts";
import { type Reminder, type ReminderStatus, reminderStatus, remindersByExecutor, remindersInOrder } from "./reminders.ts";
import type { RunProjectionState } from "./runProjection.ts";
import { type RunStatus, runStatus } from "./runState.ts";
import { unknownEffectsInOrder } from "./unknownEffects.ts";

type Left = { tokens: number | null; costMicros: number | null };

/** One call of unknown outcome: which executor, which tool use, which tool. */
export interface UnknownEffectView {
  executorId: string;
  toolUseId: string;
  tool: string;
}

/** What readers (CLI status and progress, HTTP) get for one run: plain data, JSON-safe. */
export interface RunView {
  runId: string;
  status: RunStatus;
  question: string | null;
  mainExecutorId: string | null;
  /** Main's answer when the run settled with one. */
  answer: Record<string, unknown> | null;
  /** Main settled with a partial answer: stopped by a limit, or an answer citing no finding (runState.ts citesNoFinding). */
  partial: boolean;
  /** Why Main failed or was cancelled. */
  reason: string | null;
  interruptedReason: string | null;
  cancelRequested: boolean;
  sealed: boolean;
  executors: ExecutorProgress[];
  tree: ExecutorNode[];
  /** Non-terminal executors nobody carries on (see executorTree.ts). */
  orphans: string[];
  budget: {
    run: {
      reserved: Amounts;
      spent: Amounts;
      caps: Caps;
      left: Left;
      openReservations: number;
      unmatchedSettlements: number;
      refusals: Record<string, number>;
    };
    executors: Record<
      string,
      {
        reserved: Amounts;
        spent: Amounts;
        openReservations: number;
        settledReservations: number;
        refusals: Record<string, number>;
        turns: { used: number; cap: number | null; left: number | null };
        toolCalls: { used: number; cap: number | null; left: number | null };
        tokens: { cap: number | null; left: number | null };
      }
    >;
  };
  reminders: {
    all: (Reminder & { status: ReminderStatus })[];
    byExecutor: Record<string, { raised: string[]; delivered: string[]; pending: string[] }>;
  };
  /**
   * Tool calls of any executor whose outcome is unknown (`effect_unknown`), in
   * log order: they were never run again, so whether they took effect must be
   * checked by hand before the answer is relied on.
   */
  unknownEffects: UnknownEffectView[];
  events: number;
  lastPosition: number;
}

/**
 * The read model of a run, computed from its projection state (no I/O).
 * `ownerLive`: whether a live process holds the run (known to runs/, not to the
 * log); false turns a run that would be running into interrupted.
 */
export function runView(state: RunProjectionState, ownership: { ownerLive?: boolean } = {}): RunView {
  const { lifecycle, progress, budget } = state;
  const status = runStatus(lifecycle, ownership);
  const main = lifecycle.mainExecutorId ? progress.executors[lifecycle.mainExecutorId] : undefined;
  const run = budget.run;
  return {
    runId: lifecycle.runId ?? "",
    status,
    question: lifecycle.question,
    mainExecutorId: lifecycle.mainExecutorId,
    answer: main?.answer ?? null,
    partial: lifecycle.main?.partial ?? false,
    reason: lifecycle.main?.reason ?? null,
    interruptedReason: status === "interrupted" ? (lifecycle.interrupted?.reason ?? null) : null,
    cancelRequested: lifecycle.cancelRequested,
    sealed: lifecycle.sealed,
    executors: executorsInOrder(progress),
    tree: executorTree(progress),
    orphans: orphansOf(progress, status !== "running", lifecycle.sealed),
    budget: {
      run: {
        reserved: run.reserved,
        spent: run.spent,
        caps: run.caps,
        left: {
          tokens: leftOf(run.caps.tokens, run.spent.tokens, run.reserved.tokens),
          costMicros: leftOf(run.caps.costMicros, run.spent.costMicros, run.reserved.costMicros),
        },
        openReservations: Object.keys(budget.open).length,
        unmatchedSettlements: budget.unmatchedSettlements,
        refusals: run.refusals,
      },
      executors: Object.fromEntries(
        Object.entries(budget.executors)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([id, b]) => [
            id,
            {
              reserved: b.reserved,
              spent: b.spent,
              openReservations: b.openReservations,
              settledReservations: b.settledReservations,
              refusals: b.refusals,
              turns: { used: b.turns, cap: b.limits.turns, left: leftOf(b.limits.turns, b.turns) },
              toolCalls: { used: b.toolCalls, cap: b.limits.toolCalls, left: leftOf(b.limits.toolCalls, b.toolCalls) },
              tokens: { cap: b.limits.tokens, left: leftOf(b.limits.tokens, b.spent.tokens, b.reserved.tokens) },
            },
          ]),
      ),
    },
    reminders: {
      all: remindersInOrder(state.reminders).map((r) => ({ ...r, status: reminderStatus(r) })),
      byExecutor: remindersByExecutor(state.reminders),
    },
    unknownEffects: unknownEffectsInOrder(state.unknownEffects).map(({ executorId, toolUseId, tool }) => ({ executorId, toolUseId, tool })),
    events: lifecycle.events,
    lastPosition: lifecycle.lastPosition,
  };
}
