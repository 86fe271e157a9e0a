import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import { type ExecutorProgress, projectRun } from "../projections/index.ts";
import { findRun } from "./findRun.ts";
import { ownerIsDead } from "./lease/leaseOwner.ts";

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

/** A run's lease as status shows it: a host that died leaves a lease that looks live until it runs out. */
export interface LeaseStatus {
  owner: string | null;
  epoch: number;
  /** Negative once it ran out. */
  expiresInMs: number | null;
  expiresAt: string | null;
  /** Since the lease was last taken or renewed; the heartbeat renews it at a third of its time to live. */
  heartbeatAgeMs: number | null;
  /** The owner ran on this host and its process is gone: a resume takes the run over at once. */
  ownerGone: boolean;
}

export interface RunStatus {
  runId: string;
  state: RunState;
  question: string;
  lease: LeaseStatus | null;
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
    lease: row.leaseOwner
      ? {
          owner: row.leaseOwner,
          epoch: row.epoch,
          expiresInMs: row.leaseRemainingMs,
          expiresAt: row.leaseExpiresAt?.toISOString() ?? null,
          heartbeatAgeMs: row.heartbeatAgeMs,
          ownerGone: ownerIsDead(row.leaseOwner),
        }
      : null,
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
