import { canonicalJson } from "../../core/canonicalJson.ts";
import type { Draft } from "../../events/index.ts";
import type { DelegateInput } from "../request/delegation.ts";
import type { ExecutorState, Outcome } from "../fold/executorState.ts";
import { renderConsumedHandoff } from "../request/prompts.ts";
import type { ReviewMode, ReviewPolicy } from "./reviewPolicy.ts";
import type { RoleRecord } from "../request/roles.ts";

/** The run's reviewer setting and what a decision to start a review needs from outside: the time and fresh ids. */
export interface ReviewSetting {
  mode: ReviewMode;
  policy: ReviewPolicy;
  now: Date;
  newId: () => string;
}

/**
 * Before a turn: whether to start a Reviewer on the executor's consumed
 * findings, as the run's mode and the review policy say. `review_requested`
 * names the Reviewer; once it is folded, supervision admits it.
 */
export function decideReview(s: ExecutorState, role: Pick<RoleRecord, "reviewable">, setting: ReviewSetting): Draft[] {
  if (setting.mode === "off" || !role.reviewable) return [];
  const decision = setting.policy({ mode: setting.mode, state: s, now: setting.now });
  if (!decision) return [];
  const reviewId = setting.newId();
  const reviewerExecutorId = setting.newId();
  return [{ type: "review_requested", data: { reviewId, mode: setting.mode, reviewerExecutorId, subject: decision.subject } }];
}

/** The Reviewer's task: the handoffs the executor received, as it received them, and what to check. */
export function reviewerTask(s: ExecutorState, subject: string): DelegateInput {
  const findings = Object.entries(s.children)
    .filter(([, c]) => c.handoff)
    .map(([id, c]) => renderConsumedHandoff(id, c.handoff!))
    .join("\n\n");
  return {
    question: `Review the ${subject} for the question: ${s.task.question}`,
    context: `The handoffs Main has received, as it received them:\n\n${findings}`,
    done_when: "Each issue names the claim, what you checked and what you found, with evidence; also what you checked and found supported, and what you did not check.",
    profile: "reviewer",
  };
}

/** A finished review as advice text for Main. */
export function renderReview(outcome: Outcome): string {
  return outcome.kind === "handoff" ? (canonicalJson(outcome.handoff) ?? "") : `The review ended without findings (${outcome.kind}).`;
}
