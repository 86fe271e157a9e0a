import type { RunView } from "./runView.ts";

/**
 * The run's tool calls of unknown outcome as a block to print with the answer:
 * each one's tool, executor and tool use id, and that it was not run again, so
 * a reader checks it by hand before relying on the answer. Nothing when there
 * are none.
 */
export function renderUnknownEffects(view: Pick<RunView, "unknownEffects" | "executors">): string[] {
  if (view.unknownEffects.length === 0) return [];
  const byId = new Map(view.executors.map((x) => [x.executorId, x]));
  const name = (executorId: string) => {
    const x = byId.get(executorId);
    return !x ? "executor" : x.role === "main" ? "main" : `${x.role}:${x.profile ?? "general"}`;
  };
  return [
    `UNKNOWN EFFECTS (${view.unknownEffects.length}): these tool calls were started but their outcome was never recorded (the process stopped or was cancelled while they ran).`,
    "They were not run again. Check by hand whether each took effect before relying on this answer.",
    ...view.unknownEffects.map((u) => `  - ${u.tool} · tool use ${u.toolUseId} · ${name(u.executorId)} (${u.executorId})`),
    "",
  ];
}
