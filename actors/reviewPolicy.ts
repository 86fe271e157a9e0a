import type { ExecutorState } from "./executorState.ts";

export type ReviewMode = "off" | "shadow" | "advisory";

/** What a review policy sees: the run's mode, Main's folded state (its consumed handoffs and past reviews), the time. */
export interface ReviewContext {
  mode: Exclude<ReviewMode, "off">;
  state: ExecutorState;
  now: Date;
}

/** Pure: whether to start a review now, and of what. (governance/ provides the full policy: one active, dedupe, cooldown.) */
export type ReviewPolicy = (ctx: ReviewContext) => { subject: string } | null;

/** The Children whose findings a review would examine, as its subject. */
export function reviewSubject(s: ExecutorState): string | null {
  const ids = Object.entries(s.children)
    .filter(([, c]) => (c.handoff as { findings?: unknown[] } | undefined)?.findings?.length)
    .map(([id]) => id)
    .sort();
  return ids.length ? `findings of ${ids.join(", ")}` : null;
}

/**
 * The trivial default: review once there are findings, with no review active
 * and none requested before for the same findings.
 */
export const defaultReviewPolicy: ReviewPolicy = ({ state }) => {
  const subject = reviewSubject(state);
  if (!subject) return null;
  const reviews = Object.values(state.reviews);
  if (reviews.some((r) => !r.delivered || r.subject === subject)) return null;
  return { subject };
};
