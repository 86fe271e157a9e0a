import type { ExecutorStatus } from "../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../actors/fold/executorState.ts";
import type { ProfileBinding, RecordedEvent } from "../events/index.ts";
import { type ExecutorSnapshot, isDone, startExecutor, stateOf, statusOf, stepExecutor, unknownToExecutorFold } from "./executorStep.ts";
import { type Projection, executorStreamOf } from "./projection.ts";

/** Where one executor stands, as the executor fold sees its stream. */
export interface ExecutorProgress {
  executorId: string;
  runId: string;
  role: ExecutorState["role"];
  parentExecutorId: string | null;
  depth: number;
  profile: ProfileBinding | null;
  question: string;
  model: string;
  /** Global position of its admission: the order executors appear in. */
  admittedAt: number;
  status: ExecutorStatus;
  terminal: boolean;
  turn: number;
  toolCalls: number;
  failedAttempts: number;
  /** Summed over its turns; `estimated` once a scripted model counted any of them. */
  usage: { inputTokens: number; outputTokens: number; estimated: boolean };
  /** Children whose handoff this executor has consumed. */
  consumedChildren: string[];
  lastEvent: { type: string; streamVersion: number; globalPosition: number; recordedAt: string };
  outcome: { kind: "handoff" | "answer" | "check" | "cancelled" | "failed"; reason: string | null; forced: boolean } | null;
  /** A Child's committed handoff, as it was written. */
  handoff: Record<string, unknown> | null;
  /** Main's answer, when it settled with one. */
  answer: Record<string, unknown> | null;
  unknownEffects: string[];
  /** Set when the executor fold refused an event of this stream; the progress stops there. */
  foldError: string | null;
}

export interface ProgressState {
  executors: Record<string, ExecutorProgress>;
  /** The executor fold's snapshot per live executor; dropped once it is final (it holds the whole conversation). */
  machines: Record<string, ExecutorSnapshot>;
}

/**
 * Per-executor progress (turn, tool calls, state, last event), each executor's
 * stream folded through the one executor fold. Events of other streams (run-level
 * facts) and events before an executor's admission are ignored.
 */
export const executorProgress: Projection<ProgressState> = {
  name: "executor-progress",
  initial: () => ({ executors: {}, machines: {} }),
  evolve(state, event) {
    const executorId = executorStreamOf(event);
    if (!executorId) return state;
    const known = state.executors[executorId];
    if (!known && event.type !== "executor_admitted") return state;
    const lastEvent = {
      type: event.type as string,
      streamVersion: event.streamVersion,
      globalPosition: event.globalPosition,
      recordedAt: event.recordedAt.toISOString(),
    };
    const machine = state.machines[executorId] ?? (known ? undefined : startExecutor());
    if (!machine || known?.foldError || unknownToExecutorFold(event)) {
      // Final, stopped by a refusal, or a type the executor fold does not know: only the last event moves.
      return { ...state, executors: { ...state.executors, [executorId]: { ...known!, lastEvent } } };
    }
    const step = stepExecutor(machine, event);
    const folded = stateOf(step.snapshot);
    if (!folded) return state;
    const usage = known?.usage ?? { inputTokens: 0, outputTokens: 0, estimated: false };
    const outcome = folded.outcome;
    const progress: ExecutorProgress = {
      executorId,
      runId: folded.runId,
      role: folded.role,
      parentExecutorId: folded.parentExecutorId,
      depth: folded.depth,
      profile: folded.profile,
      question: folded.task.question,
      model: folded.model,
      admittedAt: known?.admittedAt ?? event.globalPosition,
      status: statusOf(step.snapshot),
      terminal: isDone(step.snapshot),
      turn: folded.turn,
      toolCalls: folded.toolCalls,
      failedAttempts: folded.failedAttempts,
      usage:
        event.type === "turn" && !step.error
          ? {
              inputTokens: usage.inputTokens + event.data.usage.inputTokens,
              outputTokens: usage.outputTokens + event.data.usage.outputTokens,
              estimated: usage.estimated || event.data.scripted,
            }
          : usage,
      consumedChildren: Object.entries(folded.children).filter(([, c]) => c.consumed).map(([id]) => id),
      lastEvent,
      outcome: outcome && {
        kind: outcome.kind,
        reason: "reason" in outcome ? outcome.reason : null,
        forced: (outcome.kind === "handoff" && outcome.forced) || (outcome.kind === "check" && outcome.check.forced),
      },
      handoff: outcome?.kind === "handoff" ? outcome.handoff : (known?.handoff ?? null),
      answer: outcome?.kind === "answer" ? outcome.answer : null,
      unknownEffects: folded.unknownEffects,
      foldError: step.error && `${event.type} v${event.streamVersion}: ${step.error}`,
    };
    const machines = { ...state.machines };
    if (progress.terminal || step.error) delete machines[executorId];
    else machines[executorId] = step.snapshot;
    return { executors: { ...state.executors, [executorId]: progress }, machines };
  },
};

/** Executors in the order they were admitted. */
export const executorsInOrder = (state: ProgressState): ExecutorProgress[] =>
  Object.values(state.executors).sort((a, b) => a.admittedAt - b.admittedAt);
