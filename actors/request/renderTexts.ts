import type { EventData, TaskSpec } from "../../events/index.ts";
import { renderAdvice, renderBackgroundHandoff, renderChildEnded, renderConsumedHandoff, renderReminder } from "./prompts.ts";
import { urlsInTask } from "./reachableUrls.ts";
import { type Role, roleFor } from "./roles.ts";
import { requestVersion } from "./requestVersion.ts";

/**
 * The texts a model is shown, rendered once, when the event that carries them
 * is recorded (issue 28): the fold only reads them back, so a template changed
 * later never changes what a recorded run's transcript, resume or bundle shows.
 */

/** What executor_admitted records of what its model will be shown: its task text, nudge and reachable URLs, and the request code's version. */
export function renderAdmission(admitted: { role: Role; singleAgent?: boolean; task: TaskSpec }): Pick<EventData<"executor_admitted">, "rendered" | "requestVersion"> {
  const role = roleFor(admitted);
  return { rendered: { task: role.renderTask(admitted.task), nudge: role.nudge, reachable: urlsInTask(admitted.task) }, requestVersion: requestVersion() };
}

/** A consumed Child's result as its parent's model is shown it: a tool result (foreground) or a text block (background). */
export function renderConsumed(
  d: { childExecutorId: string; handoff: Record<string, unknown>; childEnded?: { outcome: string; reason: string } },
  background: boolean,
): EventData<"handoff_consumed">["rendered"] {
  if (background) return { text: d.childEnded ? renderChildEnded(d.childExecutorId, d.childEnded, true) : renderBackgroundHandoff(d.childExecutorId, d.handoff) };
  return { result: d.childEnded ? renderChildEnded(d.childExecutorId, d.childEnded, false) : renderConsumedHandoff(d.childExecutorId, d.handoff) };
}

export const renderReminderBlock = (text: string): string => renderReminder(text);
export const renderAdviceBlock = (advice: string): string => renderAdvice(advice);
