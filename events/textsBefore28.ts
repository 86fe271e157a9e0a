import { canonicalJson } from "../core/canonicalJson.ts";

/**
 * FROZEN. The texts Ariadne put in front of a model before its events carried
 * them (issue 28), copied from actors/request/prompts.ts, roles.ts and
 * reachableUrls.ts as they stood then. The catalogue's upcast() renders the
 * events written before with these, so a recorded run's transcript, resume,
 * verify and bundle show what its model was sent, whatever today's templates
 * say. Never edit this file: an edit here rewrites what old runs were sent.
 * Today's templates live in actors/request/ and may change freely.
 */

type TaskSpec = { question: string; context: string; doneWhen: string };
type Role = "main" | "child" | "reviewer" | "checker";

const renderQuestion = (task: TaskSpec): string => (task.context ? `${task.question}\n\n${task.context}` : task.question);

const renderDelegatedTask = (task: TaskSpec): string =>
  `Question: ${task.question}\n\nContext:\n${task.context || "(none given)"}\n\nDone when: ${task.doneWhen || "(not specified)"}`;

const NUDGE_TO_CHECK = "You ended your turn without calling `submit_check`. Run the check tools you have not run, or call `submit_check` with a verdict per claim.";
const NUDGE_TO_ANSWER = "You ended your turn without calling `answer`. Continue the work, or call `answer` with your structured answer.";
const NUDGE_TO_HAND_OFF =
  "You ended your turn without calling `handoff`. Continue the work, or call `handoff` with what you found, including partial findings and gaps.";

/** An executor's first user message, by role (Main and a single agent: the question; the others: the delegated task). */
export const taskTextBefore28 = (role: Role, task: TaskSpec): string => (role === "main" ? renderQuestion(task) : renderDelegatedTask(task));

/** The user message after a turn that ended without the role's terminal tool. */
export const nudgeBefore28 = (role: Role): string => (role === "main" ? NUDGE_TO_ANSWER : role === "checker" ? NUDGE_TO_CHECK : NUDGE_TO_HAND_OFF);

const URL_IN_TEXT = /https?:\/\/[^\s<>"'`)\]}]+/gi;
function urlsInText(text: string): string[] {
  const found = text.match(URL_IN_TEXT);
  return found ? found.map((u) => u.replace(/[.,;:!?]+$/, "")) : [];
}

/** The URLs an executor's task names, as written. */
export const urlsInTaskBefore28 = (task: TaskSpec): string[] => [...urlsInText(task.question), ...urlsInText(task.context), ...urlsInText(task.doneWhen)];

export const reminderBlockBefore28 = (text: string): string => `[Ariadne runtime reminder, not from the user] ${text}`;

export const adviceBlockBefore28 = (advice: string): string =>
  `[Ariadne runtime: advice from an independent reviewer, not from the user. It does not approve or veto anything; weigh it as evidence.]\n${advice}`;

function childEnded(childExecutorId: string, ended: { outcome: string; reason: string }, background: boolean): string {
  const what = `Child ${childExecutorId} ${ended.outcome} without a handoff: ${ended.reason}. Its delegation failed; delegate again or go on without it.`;
  return background ? `Background ${what}` : what;
}

function consumedHandoff(childExecutorId: string, handoff: Record<string, unknown>): string {
  return canonicalJson({ child_executor_id: childExecutorId, transcript_id: childExecutorId, handoff }) ?? "";
}

/**
 * A consumed Child's result both ways it could be shown: as the delegate call's
 * tool result (foreground) and as a text block with a later request
 * (background). A v1 event does not say which; the fold takes the one its
 * delegation's mode asks for.
 */
export function consumedBlocksBefore28(d: {
  childExecutorId: string;
  handoff: Record<string, unknown>;
  childEnded?: { outcome: string; reason: string };
}): { result: string; text: string } {
  if (d.childEnded) return { result: childEnded(d.childExecutorId, d.childEnded, false), text: childEnded(d.childExecutorId, d.childEnded, true) };
  const json = consumedHandoff(d.childExecutorId, d.handoff);
  return { result: json, text: `Handoff from background Child ${d.childExecutorId}:\n${json}` };
}
