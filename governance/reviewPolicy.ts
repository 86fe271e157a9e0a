import type { RecordedEvent } from "../events/index.ts";

/**
 * Reviewer admission, pure. A review costs the run's budget, so it must not
 * start just because time passed: at most one active review per run, an
 * identical request is reviewed once, and a cooldown separates reviews.
 */
export type ReviewMode = "off" | "shadow" | "advisory";

export interface ReviewerConfig {
  mode: ReviewMode;
  /** Time from the end of one review (its start while it has not ended) to the start of the next. */
  cooldownMs: number;
}

export const DEFAULT_REVIEWER: ReviewerConfig = { mode: "off", cooldownMs: 120_000 };

export interface ReviewPolicyState extends ReviewerConfig {
  active: { reviewId: string; key: string; requestedAt: number } | null;
  /** Keys of every review requested in the run. */
  requested: readonly string[];
  /** When the last review ended, or started if it has not ended; null before the first. */
  lastAt: number | null;
}

export interface ReviewRequest {
  /** What to review, e.g. a claim and the findings it rests on. */
  subject: string;
}

export type ReviewDecision =
  | { start: true; mode: Exclude<ReviewMode, "off">; key: string }
  | { start: false; reason: "off" | "duplicate" | "active" | "cooldown"; detail: string };

/** Identical requests share a key: the subject with case and spacing normalised. */
export const reviewKey = (request: ReviewRequest) => `review:${request.subject.trim().replace(/\s+/g, " ").toLowerCase()}`;

export function reviewPolicy(state: ReviewPolicyState, request: ReviewRequest, now: Date): ReviewDecision {
  const key = reviewKey(request);
  if (state.mode === "off") return { start: false, reason: "off", detail: "reviews are off for this run" };
  if (state.requested.includes(key)) return { start: false, reason: "duplicate", detail: "an identical review was already requested in this run" };
  if (state.active) return { start: false, reason: "active", detail: `review ${state.active.reviewId} is still active; one at a time per run` };
  if (state.lastAt !== null && now.getTime() - state.lastAt < state.cooldownMs) {
    const wait = Math.ceil((state.cooldownMs - (now.getTime() - state.lastAt)) / 1000);
    return { start: false, reason: "cooldown", detail: `the last review was under ${Math.round(state.cooldownMs / 1000)} s ago; wait ${wait} s` };
  }
  return { start: true, mode: state.mode, key };
}

/** The policy state of a run, folded from its `review_requested` and `review_delivered` events. */
export function foldReviews(events: readonly RecordedEvent[], config: ReviewerConfig = DEFAULT_REVIEWER): ReviewPolicyState {
  let state: ReviewPolicyState = { ...config, active: null, requested: [], lastAt: null };
  for (const e of events) {
    if (e.type === "review_requested") {
      const key = reviewKey({ subject: e.data.subject });
      const at = e.recordedAt.getTime();
      state = { ...state, active: { reviewId: e.data.reviewId, key, requestedAt: at }, requested: [...state.requested, key], lastAt: at };
    } else if (e.type === "review_delivered" && state.active?.reviewId === e.data.reviewId) {
      state = { ...state, active: null, lastAt: e.recordedAt.getTime() };
    }
  }
  return state;
}
