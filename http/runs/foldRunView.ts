import type { RecordedEvent } from "../../events/index.ts";
import type { ExecutorNode, RunState, RunView } from "./runsPort.ts";

/**
 * A run's view folded from its events, pure. Interim: projections/ (run state,
 * executor tree, budgets) replaces this at merge.
 */
export function foldRunView(runId: string, tenant: string, events: readonly RecordedEvent[]): RunView | null {
  const nodes = new Map<string, ExecutorNode & { parent: string | null }>();
  let main: (ExecutorNode & { parent: string | null }) | undefined;
  let createdAt = "";
  let scripted = false;
  let answer: Record<string, unknown> | null = null;
  let reason: string | null = null;
  const budget = { turns: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0 };
  for (const e of events) {
    const id = e.metadata.executorId;
    const node = nodes.get(id);
    switch (e.type) {
      case "executor_admitted": {
        const n = {
          id,
          role: e.data.role,
          profile: e.data.profile?.id ?? null,
          status: "running" as const,
          question: e.data.task.question,
          turns: 0,
          toolCalls: 0,
          children: [],
          parent: e.data.parentExecutorId,
        };
        nodes.set(id, n);
        if (e.data.role === "main") {
          main = n;
          createdAt = e.recordedAt.toISOString();
        }
        break;
      }
      case "turn":
        if (node) node.turns++;
        budget.turns++;
        budget.inputTokens += e.data.usage.inputTokens;
        budget.outputTokens += e.data.usage.outputTokens;
        scripted ||= e.data.scripted;
        break;
      case "tool_called":
        if (node) node.toolCalls++;
        budget.toolCalls++;
        break;
      case "settled":
        if (node) node.status = "settled";
        if (node === main && e.data.answer) answer = e.data.answer;
        break;
      case "failed":
        if (node) node.status = "failed";
        if (node === main) reason = e.data.reason;
        break;
      case "cancelled":
        if (node) node.status = "cancelled";
        if (node === main) reason = e.data.reason;
        break;
    }
  }
  if (!main) return null;
  for (const n of nodes.values()) if (n.parent) nodes.get(n.parent)?.children.push(n);
  const strip = ({ parent: _p, ...n }: ExecutorNode & { parent?: string | null }): ExecutorNode => ({ ...n, children: n.children.map(strip) });
  return {
    id: runId,
    tenant,
    state: runState(main.status, [...nodes.values()].every((n) => n.status !== "running")),
    question: main.question,
    mainExecutorId: main.id,
    createdAt,
    scripted,
    budget,
    executors: strip(main),
    answer,
    reason,
    lastPosition: events.at(-1)?.globalPosition ?? 0,
  };
}

/** Final once Main and every Child it left behind have stopped (Children are cancelled after Main settles). */
function runState(main: ExecutorNode["status"], allStopped: boolean): RunState {
  if (main === "running" || !allStopped) return "running";
  return main;
}
