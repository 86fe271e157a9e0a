import { canonicalJson } from "../../core/canonicalJson.ts";
import type { TaskSpec } from "../../events/index.ts";

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

export const SINGLE_AGENT_SYSTEM = `You are the single research executor that answers the user's question and owns the answer.
You hold every research tool yourself (search, fetch, documents, compute, workspace) and delegate nothing:
do each step of the work with your own tools. Finish by calling \`answer\` once, with \`evidence\`: your
findings, each citing the tool results (tool_use ids) and citation markers behind it and quoting the exact
text it rests on (copied character for character from the tool output; the runtime checks each against what
the call read), the measurement basis, real artifacts only, honest gaps and your confidence. Every claim is
either observed (cite the findings of your evidence it rests on, with your executor id), a judgment
(depends on goals or assumptions), or not collected.`;

export const CHILD_SYSTEM = `You are a Child executor working on one delegated task in a fresh context.
You can take several steps with your granted tools. Keep evidence, not process: finish by calling \`handoff\`
once, with findings that cite the tool results (tool_use ids) and citation markers ([[...]]) behind them,
quotes of the exact text they rest on (copied character for character from the tool output; the runtime
checks each against what the call read), the measurement basis, real artifacts only, honest gaps and your confidence. If you could not do part of the
task, say so in gaps; never invent a result.`;

export function childSystem(profileContent: string | null): string {
  if (!profileContent) return CHILD_SYSTEM;
  let system = childSystems.get(profileContent);
  if (system === undefined) {
    // Profiles are few; a bound all the same, for a process that loads them from many directories.
    if (childSystems.size >= 64) childSystems.clear();
    childSystems.set(profileContent, (system = `${CHILD_SYSTEM}\n\n# Your method\n\n${profileContent}`));
  }
  return system;
}

/**
 * One system prompt per profile, shared by every Child of it: built afresh, each
 * request's prompt became a flat copy of its own (the canonical writer reads it
 * char by char), held as long as the request waited on the model.
 */
const childSystems = new Map<string, string>();

/** Main's task is the user's question as asked. */
export const renderQuestion = (task: TaskSpec): string => (task.context ? `${task.question}\n\n${task.context}` : task.question);

/** A delegated task: the Child sees this and nothing else of its parent's conversation. */
export const renderDelegatedTask = (task: TaskSpec): string =>
  `Question: ${task.question}\n\nContext:\n${task.context || "(none given)"}\n\nDone when: ${task.doneWhen || "(not specified)"}`;

export const CHECKER_SYSTEM = `You are the Checker: after Main drafted its answer, and before the run is sealed, you check it.
Use your check tools, which are deterministic and recorded in the log: check_numbers (every number of a claim
against the text of what it cites), reread_sources (each cited source read again and its hash compared),
check_advice (buy/sell recommendations, price targets, position advice) and find_unevidenced_claims. Then call
\`submit_check\` once with one verdict per claim, resting on those outputs. You cannot pass what a tool flagged.`;

export function checkerSystem(profileContent: string | null): string {
  return profileContent ? `${CHECKER_SYSTEM}\n\n# Your method\n\n${profileContent}` : CHECKER_SYSTEM;
}

export const NUDGE_TO_CHECK = "You ended your turn without calling `submit_check`. Run the check tools you have not run, or call `submit_check` with a verdict per claim.";

export const NUDGE_TO_ANSWER = "You ended your turn without calling `answer`. Continue the work, or call `answer` with your structured answer.";
export const NUDGE_TO_HAND_OFF =
  "You ended your turn without calling `handoff`. Continue the work, or call `handoff` with what you found, including partial findings and gaps.";

/** A reminder from the runtime: its own text block, never passed off as the user's or a tool's words. */
export const renderReminder = (text: string): string => `[Ariadne runtime reminder, not from the user] ${text}`;

/** A reviewer's findings, offered to Main once as advice it may weigh or ignore. */
export const renderAdvice = (advice: string): string =>
  `[Ariadne runtime: advice from an independent reviewer, not from the user. It does not approve or veto anything; weigh it as evidence.]\n${advice}`;

/** A Child that ended without a handoff of its own, as its parent learns it (foreground or background alike). */
export function renderChildEnded(childExecutorId: string, ended: { outcome: string; reason: string }, background: boolean): string {
  const what = `Child ${childExecutorId} ${ended.outcome} without a handoff: ${ended.reason}. Its delegation failed; delegate again or go on without it.`;
  return background ? `Background ${what}` : what;
}

/**
 * What a parent sees of a Child: its handoff and the id under which its transcript is kept.
 * Canonical JSON (sorted keys): the handoff is read back from a jsonb column, which does not
 * keep key order, and a rebuilt request must be byte for byte the one that was sent.
 */
export function renderConsumedHandoff(childExecutorId: string, handoff: Record<string, unknown>): string {
  return canonicalJson({ child_executor_id: childExecutorId, transcript_id: childExecutorId, handoff }) ?? "";
}

/** A background Child's handoff, delivered with a later request than the one that delegated it. */
export function renderBackgroundHandoff(childExecutorId: string, handoff: Record<string, unknown>): string {
  return `Handoff from background Child ${childExecutorId}:\n${renderConsumedHandoff(childExecutorId, handoff)}`;
}
