import { DEFAULT_REVIEWER, type ReviewMode, reviewKey, reviewPolicy } from "../../governance/reviewPolicy.ts";
import type { ExecutorState } from "../fold/executorState.ts";

export type { ReviewMode };

/**
 * How long Main waits, before a model call, for an advisory review requested
 * before it, so the advice reaches that request (and so Main's answer). Past it
 * Main goes on; the advice comes with a later request, if any. Shadow reviews are never waited for.
 */
export const ADVICE_WAIT_MS = 120_000;

/** What a review policy sees: the run's mode, Main's folded state (its consumed handoffs and past reviews), the time. */
export interface ReviewContext {
  mode: Exclude<ReviewMode, "off">;
  state: ExecutorState;
  now: Date;
}

/** Pure: whether to start a review now, and of what. */
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
 * The governance policy (governance/reviewPolicy.ts: one active review per run,
 * identical requests once, a cooldown) over Main's folded reviews. Main's stream
 * holds every review of the run, so its state is the policy's state. The cooldown
 * counts from the last review's start: the fold keeps no end time.
 */
export function reviewPolicyWith(cooldownMs: number = DEFAULT_REVIEWER.cooldownMs): ReviewPolicy {
  return ({ mode, state, now }) => {
    const subject = reviewSubject(state);
    if (!subject) return null;
    const reviews = Object.entries(state.reviews);
    const active = reviews.find(([, r]) => !r.delivered);
    const starts = reviews.map(([, r]) => Date.parse(r.requestedAt));
    const decision = reviewPolicy(
      {
        mode,
        cooldownMs,
        active: active ? { reviewId: active[0], key: reviewKey(active[1]), requestedAt: Date.parse(active[1].requestedAt) } : null,
        requested: reviews.map(([, r]) => reviewKey(r)),
        lastAt: starts.length ? Math.max(...starts) : null,
      },
      { subject },
      now,
    );
    return decision.start ? { subject } : null;
  };
}

export const defaultReviewPolicy: ReviewPolicy = reviewPolicyWith();
