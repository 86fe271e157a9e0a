import type { Answer } from "../actors/index.ts";
import type { RecordedEvent } from "../events/index.ts";
import type { Handoff } from "../handoff/handoffSchema.ts";

export type ExecutorStatus = "running" | "answered" | "handed_off" | "failed" | "cancelled";

export interface ExecutorView {
  executorId: string;
  parentExecutorId: string | null;
  role: "main" | "child";
  /** The Specialty Profile a Child follows; null for Main. */
  profile: string | null;
  model: string;
  task: string;
  status: ExecutorStatus;
  /** Why it failed or was cancelled. */
  reason: string | null;
  turns: number;
  /** Summed over its turns; `estimated` when a scripted model counted them. */
  usage: { inputTokens: number; outputTokens: number; estimated: boolean };
}

/** A Child's committed handoff, whole, as the log holds it. */
export type HandoffView = { executorId: string; profile: string; forced: boolean; consumed: boolean } & Handoff;

export interface RunView {
  runId: string;
  mainExecutorId: string | null;
  executors: ExecutorView[];
  handoffs: HandoffView[];
  answer: Answer | null;
}

/** What a run did, read from its events: the executor tree, every handoff whole, and the answer. */
export function runView(runId: string, events: readonly RecordedEvent[]): RunView {
  const executors = new Map<string, ExecutorView>();
  const handoffs: HandoffView[] = [];
  const consumed = new Set<string>();
  let answer: Answer | null = null;
  for (const e of events) {
    const x = executors.get(e.metadata.executorId);
    switch (e.type) {
      case "executor_admitted":
        executors.set(e.metadata.executorId, {
          executorId: e.metadata.executorId,
          parentExecutorId: e.data.parentExecutorId,
          role: e.data.role,
          profile: e.data.profile?.id ?? null,
          model: e.data.model,
          task: e.data.task.question,
          status: "running",
          reason: null,
          turns: 0,
          usage: { inputTokens: 0, outputTokens: 0, estimated: false },
        });
        break;
      case "turn":
        if (!x) break;
        x.turns++;
        x.usage.inputTokens += e.data.usage.inputTokens;
        x.usage.outputTokens += e.data.usage.outputTokens;
        x.usage.estimated ||= e.data.scripted;
        break;
      case "handoff_committed":
        handoffs.push({
          executorId: e.metadata.executorId,
          profile: x?.profile ?? "general",
          forced: e.data.forced,
          consumed: false,
          ...(e.data.handoff as unknown as Handoff),
        });
        break;
      case "handoff_consumed":
        consumed.add(e.data.childExecutorId);
        break;
      case "settled":
        if (x) x.status = e.data.outcome;
        if (e.data.answer) answer = e.data.answer as unknown as Answer;
        break;
      case "failed":
      case "cancelled":
        if (x) Object.assign(x, { status: e.type, reason: e.data.reason });
        break;
    }
  }
  for (const h of handoffs) h.consumed = consumed.has(h.executorId);
  const all = [...executors.values()];
  return { runId, mainExecutorId: all.find((x) => x.role === "main")?.executorId ?? null, executors: all, handoffs, answer };
}
