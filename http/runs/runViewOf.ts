import type { RunView as Projected } from "../../projections/index.ts";
import type { ListedRun } from "../../runs/listRuns.ts";
import type { ExecutorNode, RunState, RunView } from "./runsPort.ts";

/** A run's row in ariadne_runs, as the API reads it. */
export type RunRow = ListedRun;

/**
 * The API's view of a run: its row (tenant, queue state) and its projection
 * (projections/projectRun: run state, executor tree, budget, answer), pure.
 */
export function runViewOf(row: RunRow, p: Projected): RunView {
  const state = apiState(row, p);
  const executors = p.executors;
  const byId = new Map(executors.map((x) => [x.executorId, x]));
  const node = (id: string): ExecutorNode => {
    const x = byId.get(id)!;
    return {
      id,
      role: x.role,
      profile: x.profile?.id ?? null,
      status: x.outcome ? (x.outcome.kind === "handoff" || x.outcome.kind === "answer" || x.outcome.kind === "check" ? "settled" : x.outcome.kind) : "running",
      question: x.question,
      turns: x.turn,
      toolCalls: x.toolCalls,
      children: executors.filter((c) => c.parentExecutorId === id).map((c) => node(c.executorId)),
    };
  };
  // Before Main is admitted (queued, or cancelled while queued) its node is the run itself.
  const main: ExecutorNode = byId.has(row.mainExecutorId)
    ? node(row.mainExecutorId)
    : { id: row.mainExecutorId, role: "main", profile: null, status: state === "cancelled" ? "cancelled" : "running", question: row.question, turns: 0, toolCalls: 0, children: [] };
  const run = p.budget.run;
  return {
    id: row.runId,
    tenant: row.tenant,
    state,
    question: row.question,
    mainExecutorId: row.mainExecutorId,
    createdAt: row.createdAt.toISOString(),
    scripted: row.options.mode !== "model",
    budget: {
      turns: executors.reduce((n, x) => n + x.turn, 0),
      toolCalls: executors.reduce((n, x) => n + x.toolCalls, 0),
      inputTokens: executors.reduce((n, x) => n + x.usage.inputTokens, 0),
      outputTokens: executors.reduce((n, x) => n + x.usage.outputTokens, 0),
      spent: run.spent,
      reserved: run.reserved,
      caps: run.caps,
      left: run.left,
      reminders: p.reminders.all.map((r) => ({ key: r.key, text: r.text, status: r.status })),
    },
    executors: main,
    answer: p.answer,
    reason: p.reason ?? p.interruptedReason ?? (state === "cancelled" ? "cancelled while queued, before a worker started it" : null),
    unknownEffects: p.unknownEffects,
    lastPosition: p.lastPosition,
    metadata: row.metadata,
  };
}

/**
 * Run states onto the API's. A run is final (settled, failed, cancelled) once
 * its row is finished: its host sealed it after Main stopped, or a cancel took
 * it off the queue (a finished row whose Main was never admitted was cancelled
 * while queued). Until then it is running while a live process holds its
 * lease, else queued: waiting for a worker (new, or to take over a run whose
 * host stopped), or, when its row says interrupted, for an operator's resume
 * or cancel (`reason` says why).
 */
function apiState(row: RunRow, p: Projected): RunState {
  if (row.state === "finished") {
    // The row's final status is what the list filters by; the projection answers for rows it cannot tell.
    if (row.status === "settled" || row.status === "failed" || row.status === "cancelled") return row.status;
    if (p.status === "settled" || p.status === "failed" || p.status === "cancelled") return p.status;
    return "cancelled";
  }
  return row.ownerLive ? "running" : "queued";
}
