import { NotFoundError } from "../core/errors.ts";
import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { foldRun, runView as projectedView } from "../projections/index.ts";
import { formatTokens } from "./formatTokens.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";
import { renderHandoff } from "./renderHandoff.ts";
import { renderUnknownEffects } from "./renderUnknownEffects.ts";
import { type ExecutorView, type RunView, runView } from "./runView.ts";

/** `ariadne show RUN`: what a run did, read from the log only. */
export async function showRun(options: OpenOptions & { runId: string; json: boolean; out: (line: string) => void }): Promise<number> {
  const { store, close } = await openStore({ ...options, readOnly: true });
  try {
    const events = await store.readRun(options.runId);
    if (events.length === 0) throw new NotFoundError(`no run ${options.runId} in the log at ${store.database.location}`);
    const view = runView(projectedView(foldRun(events)));
    if (options.json) options.out(JSON.stringify(view));
    else for (const line of renderRun(view, handoffsOf(view))) options.out(line);
    return 0;
  } finally {
    await close();
  }
}

export function renderRun(view: RunView, handoffs: ReturnType<typeof handoffsOf>): string[] {
  const main = view.executors.find((x) => x.executorId === view.mainExecutorId);
  const lines = [`run ${view.runId}: ${main ? describeState(main) : "no Main executor"}`, "", "executors:"];
  const tree = (parent: string | null, depth: number): void => {
    for (const x of view.executors.filter((e) => e.parentExecutorId === parent)) {
      const name = x.role === "main" ? "main" : `${x.role === "checker" ? "checker" : "child"}:${x.profile ?? "general"}`;
      lines.push(`${"  ".repeat(depth + 1)}${name} ${x.executorId}: ${describeState(x)} · ${x.turns} turns · ${formatTokens(x.usage, x.usage.estimated)} · ${x.model}`);
      if (x.role === "child") lines.push(`${"  ".repeat(depth + 2)}task: ${x.task}`);
      tree(x.executorId, depth + 1);
    }
  };
  tree(null, 0);
  lines.push("");
  // A single agent's Main commits its own findings as a handoff: named as Main's, not a Child's.
  for (const h of view.handoffs) lines.push(...renderHandoff(h, h.executorId === view.mainExecutorId ? "main" : undefined), "");
  if (view.answer) lines.push("answer:", ...renderAnswer(view.answer, handoffs, view.mainExecutorId));
  else lines.push("no answer recorded");
  lines.push(...renderUnknownEffects(view));
  return lines;
}

const STATUS_TEXT: Partial<Record<ExecutorView["status"], string>> = { partial_answer: "partial answer" };
const describeState = (x: ExecutorView) => {
  const status = STATUS_TEXT[x.status] ?? x.status;
  return x.reason ? `${status}: ${x.reason}` : status;
};
