import type { ExecutorStatus } from "../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../actors/fold/executorState.ts";
import { type ExecutorProgress, type ProgressState, executorsInOrder } from "./executorProgress.ts";

export interface ExecutorNode {
  executorId: string;
  role: ExecutorState["role"];
  /** The Specialty Profile's id, or null (Main, or a Child with none). */
  profile: string | null;
  status: ExecutorStatus;
  turn: number;
  toolCalls: number;
  children: ExecutorNode[];
}

/**
 * The executor tree of a run, built from the progress projection (which already
 * holds each executor's parent, role, profile and state), children in admission
 * order. Roots are executors with no parent or whose parent is not in the run.
 */
export function executorTree(progress: ProgressState): ExecutorNode[] {
  const all = executorsInOrder(progress);
  const node = (p: ExecutorProgress): ExecutorNode => ({
    executorId: p.executorId,
    role: p.role,
    profile: p.profile?.id ?? null,
    status: p.status,
    turn: p.turn,
    toolCalls: p.toolCalls,
    children: all.filter((c) => c.parentExecutorId === p.executorId).map(node),
  });
  return all.filter((p) => !p.parentExecutorId || !progress.executors[p.parentExecutorId]).map(node);
}

/**
 * Executors left non-terminal with no one to carry them on: the run is over
 * (`runOver`), or the parent reached a final state. They need a resume or a cancel.
 */
export function orphansOf(progress: ProgressState, runOver: boolean, sealed = false): string[] {
  return executorsInOrder(progress)
    // The Checker works after Main answered (its parent final, the run answered) until the seal.
    .filter((p) => !p.terminal && (p.role !== "checker" || sealed))
    .filter((p) => runOver || (p.parentExecutorId !== null && progress.executors[p.parentExecutorId]?.terminal === true))
    .map((p) => p.executorId);
}

/** A short, stable name per executor: main, or <role>:<profile>#<n> (child:web-explorer#1) in admission order. */
export function executorNames(progress: ProgressState): Map<string, string> {
  const names = new Map<string, string>();
  let children = 0;
  for (const p of executorsInOrder(progress)) {
    names.set(p.executorId, p.role === "main" ? "main" : `${p.role}:${p.profile?.id ?? "general"}#${++children}`);
  }
  return names;
}
