import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RecordedEvent } from "../../events/index.ts";
import { type ReviewPolicyState, foldReviews, reviewPolicy } from "../../governance/index.ts";

const t0 = new Date("2026-01-01T00:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const idle = (mode: ReviewPolicyState["mode"]): ReviewPolicyState => ({ mode, cooldownMs: 60_000, active: null, requested: [], lastAt: null });

function event(type: "review_requested" | "review_delivered", data: object, seconds: number): RecordedEvent {
  return { type, data, recordedAt: at(seconds) } as unknown as RecordedEvent;
}

describe("Reviewer policy", () => {
  it("starts nothing when reviews are off", () => {
    assert.deepEqual(reviewPolicy(idle("off"), { subject: "fees" }, t0), { start: false, reason: "off", detail: "reviews are off for this run" });
  });

  it("starts a review in the run's mode", () => {
    assert.deepEqual(reviewPolicy(idle("shadow"), { subject: "Fees" }, t0), { start: true, mode: "shadow", key: "review:fees" });
    assert.equal((reviewPolicy(idle("advisory"), { subject: "fees" }, t0) as { mode: string }).mode, "advisory");
  });

  it("holds one active review per run, deduplicates identical requests, then keeps the cooldown", () => {
    const cfg = { mode: "advisory" as const, cooldownMs: 60_000 };
    const requested = [event("review_requested", { reviewId: "r1", mode: "advisory", reviewerExecutorId: "x", subject: "Fee claim" }, 0)];
    const active = foldReviews(requested, cfg);
    assert.equal((reviewPolicy(active, { subject: "  fee   CLAIM " }, at(5)) as { reason: string }).reason, "duplicate");
    assert.equal((reviewPolicy(active, { subject: "risk claim" }, at(5)) as { reason: string }).reason, "active");

    const ended = foldReviews([...requested, event("review_delivered", { reviewId: "r1", delivered: true, turn: 3 }, 100)], cfg);
    assert.equal(ended.active, null);
    const early = reviewPolicy(ended, { subject: "risk claim" }, at(130));
    assert.equal((early as { reason: string }).reason, "cooldown");
    assert.match((early as { detail: string }).detail, /wait 30 s/);
    assert.deepEqual(reviewPolicy(ended, { subject: "risk claim" }, at(160)), { start: true, mode: "advisory", key: "review:risk claim" });
    assert.equal((reviewPolicy(ended, { subject: "Fee claim" }, at(1000)) as { reason: string }).reason, "duplicate", "identical requests stay deduplicated");
  });
});
