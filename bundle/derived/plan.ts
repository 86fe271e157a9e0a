import { isFinalEvent } from "../../events/finalEvents.ts";
import { type BundleRun, type DerivedFile, admissionOf, byExecutor, ofType, profileLabel, textFile } from "../bundleRun.ts";

/** plan.md: every delegation in the order it was decided, with the task each Child was given and how it ended. */
export function writePlan(run: BundleRun): DerivedFile[] {
  const executors = byExecutor(run);
  const delegations = ofType(run.events, "tool_called").filter((e) => e.data.childExecutorId);
  const lines = ["# Plan", "", delegations.length ? `${delegations.length} delegation${delegations.length > 1 ? "s" : ""}, in the order they were decided.` : "No executor delegated any work."];
  delegations.forEach((call, i) => {
    const childId = call.data.childExecutorId!;
    const child = executors.get(childId) ?? [];
    const admitted = admissionOf(child);
    lines.push("", `## ${i + 1}. Child ${childId}`, "", `- Delegated by: ${call.metadata.executorId} (turn ${call.data.turn}, tool use ${call.data.toolUseId})`);
    if (!admitted) {
      lines.push("- Not admitted: its stream holds no admission.");
      return;
    }
    lines.push(
      `- Profile: ${profileLabel(admitted.data.profile)}${admitted.data.profile ? ` (sha256 ${admitted.data.profile.sha256})` : ""}`,
      `- Model: ${admitted.data.model}`,
      `- Question: ${item(admitted.data.task.question)}`,
      `- Context: ${item(admitted.data.task.context || "(none)")}`,
      `- Done when: ${item(admitted.data.task.doneWhen || "(not stated)")}`,
      `- Tools granted: ${admitted.data.grantedTools.join(", ") || "(none)"}`,
      `- Outcome: ${outcomeOf(child)}`,
    );
  });
  return [textFile("plan.md", `${lines.join("\n")}\n`)];
}

/** A task's text inside a list item: its later lines indented, so they stay in the item. */
const item = (text: string) => text.replace(/\n/g, "\n  ");

function outcomeOf(events: readonly { type: string; data: unknown }[]): string {
  const end = events.findLast(isFinalEvent);
  if (!end) return "did not end";
  const data = end.data as { outcome?: string; reason?: string };
  return end.type === "settled" ? `settled (${data.outcome})` : `${end.type}: ${data.reason}`;
}
