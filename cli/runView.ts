import type { Answer } from "../actors/index.ts";
import type { Handoff } from "../handoff/handoffSchema.ts";
import type { ExecutorProgress, RunView as ProjectedRun, UnknownEffectView } from "../projections/index.ts";

export type ExecutorStatus = "running" | "answered" | "partial_answer" | "handed_off" | "checked" | "failed" | "cancelled";

export interface ExecutorView {
  executorId: string;
  parentExecutorId: string | null;
  role: ExecutorProgress["role"];
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
  /** Tool calls whose outcome is unknown (never run again): check them before relying on the answer. */
  unknownEffects: UnknownEffectView[];
}

/** What the command line shows of a run, read off the run projection (projections/): no second fold. */
export function runView(run: ProjectedRun): RunView {
  const consumed = new Set(run.executors.flatMap((x) => x.consumedChildren));
  const executors = run.executors.map(
    (x): ExecutorView => ({
      executorId: x.executorId,
      parentExecutorId: x.parentExecutorId,
      role: x.role,
      profile: x.profile?.id ?? null,
      model: x.model,
      task: x.question,
      // Main stopped by a limit settled with a partial answer: never shown as answered.
      status: x.executorId === run.mainExecutorId && run.partial && x.outcome?.kind === "answer" ? "partial_answer" : statusOf(x),
      reason: x.outcome?.reason ?? null,
      turns: x.turn,
      usage: x.usage,
    }),
  );
  const handoffs = run.executors
    .filter((x) => x.handoff)
    .map(
      (x): HandoffView => ({
        executorId: x.executorId,
        profile: x.profile?.id ?? "general",
        forced: x.outcome?.forced ?? false,
        consumed: consumed.has(x.executorId),
        ...(x.handoff as unknown as Handoff),
      }),
    );
  return { runId: run.runId, mainExecutorId: run.mainExecutorId, executors, handoffs, answer: run.answer as Answer | null, unknownEffects: run.unknownEffects };
}

function statusOf(x: ExecutorProgress): ExecutorStatus {
  switch (x.outcome?.kind) {
    case "answer":
      return "answered";
    case "handoff":
      return "handed_off";
    case "check":
      return "checked";
    case "failed":
      return "failed";
    case "cancelled":
      return "cancelled";
    default:
      return "running";
  }
}
