import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import { type ExecutorProgress, projectRun } from "../projections/index.ts";
import { findRun } from "./findRun.ts";

export type RunState = "submitted" | "running" | "settled" | "failed" | "cancelled" | "interrupted";
export type ExecutorNodeState = "running" | "settled" | "failed" | "cancelled";

export interface ExecutorNode {
  executorId: string;
  role: ExecutorProgress["role"];
  profile: string | null;
  task: string;
  state: ExecutorNodeState;
  turns: number;
  /** Tool calls whose outcome is unknown (never re-run). */
  unknownEffects: number;
  children: ExecutorNode[];
}

export interface RunStatus {
  runId: string;
  state: RunState;
  question: string;
  lease: { owner: string | null; epoch: number; expiresInMs: number | null } | null;
  executors: ExecutorNode | null;
  events: number;
}

/**
 * The run's state and executor tree, read off the run projection (projections/);
 * the lease row says whether a live process holds the run, which the log cannot.
 */
export async function runStatus(database: Database, store: EventStore, runId: string): Promise<RunStatus> {
  const row = await findRun(database, runId);
  const ownerLive = row.state === "running" && row.leaseOwner !== null && (row.leaseRemainingMs ?? 0) > 0;
  const view = await projectRun(store, runId, { ownerLive });
  const nodes = new Map<string, ExecutorNode>(view.executors.map((x) => [x.executorId, nodeOf(x)]));
  for (const x of view.executors) if (x.parentExecutorId) nodes.get(x.parentExecutorId)?.children.push(nodes.get(x.executorId)!);
  // A run taken off the queue before Main was ever admitted was cancelled while submitted.
  const state: RunState = row.state === "finished" && view.status === "submitted" ? "cancelled" : view.status;
  return {
    runId,
    state,
    question: row.question,
    lease: row.leaseOwner ? { owner: row.leaseOwner, epoch: row.epoch, expiresInMs: row.leaseRemainingMs } : null,
    executors: nodes.get(row.mainExecutorId) ?? null,
    events: view.events,
  };
}

function nodeOf(x: ExecutorProgress): ExecutorNode {
  const state: ExecutorNodeState =
    x.outcome?.kind === "failed" ? "failed" : x.outcome?.kind === "cancelled" ? "cancelled" : x.outcome ? "settled" : "running";
  return {
    executorId: x.executorId,
    role: x.role,
    profile: x.profile?.id ?? null,
    task: x.question,
    state,
    turns: x.turn,
    unknownEffects: x.unknownEffects.length,
    children: [],
  };
}
