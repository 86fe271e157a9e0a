import canonicalize from "canonicalize";
import type { TaskSpec } from "../events/index.ts";

/**
 * Every text the runtime itself puts in front of a model. They are part of the
 * fold (a rebuilt transcript must match what was sent), so change them with care:
 * old runs' request digests will no longer match a rebuild.
 */

export const MAIN_SYSTEM = `You are Main, the research executor that answers the user's question and owns the answer.
Delegate local work that needs several steps (finding sources, reading documents, computing) with the
\`delegate\` tool: give each Child one precise question, everything it needs in \`context\` (it sees nothing
else of this conversation), what a complete answer contains in \`done_when\`, and a profile. Several
delegations in one turn run in parallel; with \`wait: false\` a Child works in the background and its handoff
arrives with a later request, so you wait only for the results you need now. Use your own tools directly
for simple lookups.
Children return handoffs: findings with evidence, measurement basis, gaps and confidence. Integrate them
around the user's decision. Finish by calling \`answer\` once: every claim is either observed (cite the
handoff findings it rests on), a judgment (depends on goals or assumptions), or not collected.`;

export const CHILD_SYSTEM = `You are a Child executor working on one delegated task in a fresh context.
You can take several steps with your granted tools. Keep evidence, not process: finish by calling \`handoff\`
once, with findings that cite the tool results (tool_use ids) and citation markers ([[...]]) behind them,
the measurement basis, real artifacts only, honest gaps and your confidence. If you could not do part of the
task, say so in gaps; never invent a result.`;

export function childSystem(profileContent: string | null): string {
  return profileContent ? `${CHILD_SYSTEM}\n\n# Your method\n\n${profileContent}` : CHILD_SYSTEM;
}

export function renderTask(role: "main" | "child", task: TaskSpec): string {
  if (role === "main") return task.context ? `${task.question}\n\n${task.context}` : task.question;
  return `Question: ${task.question}\n\nContext:\n${task.context || "(none given)"}\n\nDone when: ${task.doneWhen || "(not specified)"}`;
}

export function nudgeToFinish(role: "main" | "child"): string {
  return role === "main"
    ? "You ended your turn without calling `answer`. Continue the work, or call `answer` with your structured answer."
    : "You ended your turn without calling `handoff`. Continue the work, or call `handoff` with what you found, including partial findings and gaps.";
}

/**
 * What a parent sees of a Child: its handoff and the id under which its transcript is kept.
 * Canonical JSON (sorted keys): the handoff is read back from a jsonb column, which does not
 * keep key order, and a rebuilt request must be byte for byte the one that was sent.
 */
export function renderConsumedHandoff(childExecutorId: string, handoff: Record<string, unknown>): string {
  return canonicalize({ child_executor_id: childExecutorId, transcript_id: childExecutorId, handoff }) ?? "";
}

/** A background Child's handoff, delivered with a later request than the one that delegated it. */
export function renderBackgroundHandoff(childExecutorId: string, handoff: Record<string, unknown>): string {
  return `Handoff from background Child ${childExecutorId}:\n${renderConsumedHandoff(childExecutorId, handoff)}`;
}
