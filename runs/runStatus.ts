import type { Database } from "../db/openDatabase.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { findRun } from "./findRun.ts";

export type RunState = "submitted" | "running" | "settled" | "failed" | "cancelled" | "interrupted";
export type ExecutorNodeState = "running" | "settled" | "failed" | "cancelled";

export interface ExecutorNode {
  executorId: string;
  role: "main" | "child";
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
 * The run's state and executor tree.
 *
 * TO BE REPLACED at merge by the run-state and executor-tree projections
 * (projections/, H6): this stand-in folds store.readRun on every call.
 */
export async function runStatus(database: Database, store: EventStore, runId: string): Promise<RunStatus> {
  const row = await findRun(database, runId);
  const events = await store.readRun(runId);
  const nodes = new Map<string, ExecutorNode & { parent: string | null }>();
  let interruptedAt = -1;
  let lastExecutorEvent = -1;
  for (const e of events) {
    if (e.type === "run_interrupted") interruptedAt = e.globalPosition;
    if (!e.streamId.startsWith("executor-")) continue;
    lastExecutorEvent = e.globalPosition;
    const id = e.metadata.executorId;
    if (e.type === "executor_admitted") {
      nodes.set(id, {
        executorId: id,
        parent: e.data.parentExecutorId,
        role: e.data.role,
        profile: e.data.profile?.id ?? null,
        task: e.data.task.question,
        state: "running",
        turns: 0,
        unknownEffects: 0,
        children: [],
      });
      continue;
    }
    const n = nodes.get(id);
    if (!n) continue;
    applyTo(n, e);
  }
  for (const n of nodes.values()) if (n.parent) nodes.get(n.parent)?.children.push(n);
  const main = nodes.get(row.mainExecutorId) ?? null;

  let state: RunState;
  if (main && main.state !== "running") state = main.state;
  else if (row.state === "finished") state = "cancelled"; // finished before Main ever ran: cancelled while submitted
  else if (row.state === "interrupted" || (interruptedAt > lastExecutorEvent && row.state !== "running")) state = "interrupted";
  else if (row.state === "submitted") state = "submitted";
  else state = "running";

  return {
    runId,
    state,
    question: row.question,
    lease: row.leaseOwner ? { owner: row.leaseOwner, epoch: row.epoch, expiresInMs: row.leaseRemainingMs } : null,
    executors: main ? strip(main) : null,
    events: events.length,
  };
}

function applyTo(n: ExecutorNode, e: RecordedEvent): void {
  if (e.type === "turn") n.turns = e.data.turn;
  else if (e.type === "effect_unknown") n.unknownEffects++;
  else if (e.type === "settled") n.state = "settled";
  else if (e.type === "failed") n.state = "failed";
  else if (e.type === "cancelled") n.state = "cancelled";
}

function strip(n: ExecutorNode & { parent?: string | null }): ExecutorNode {
  const { parent: _parent, ...rest } = n;
  return { ...rest, children: n.children.map(strip) };
}
