import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isValidationError } from "../../core/errors.ts";
import { CONFIGURED_CAPS, PRICES, costMicros, executorCapsFor, priceOf, resolveCaps } from "../../governance/index.ts";

describe("caps", () => {
  it("defaults to the configured caps, which follow the seeds", () => {
    const caps = resolveCaps();
    assert.deepEqual(caps, CONFIGURED_CAPS);
    assert.equal(caps.run.maxTokens, 600_000);
    assert.deepEqual([caps.child.maxToolCalls, caps.child.wallClockMs], [25, 6 * 60_000]);
    assert.deepEqual(caps.investigate, { maxTurns: 15, maxToolCalls: 25, maxTokens: 60_000, wallClockMs: 90_000 });
  });

  it("lets a run lower a cap and keeps the rest", () => {
    const caps = resolveCaps({ run: { maxTokens: 100_000 }, child: { maxToolCalls: 10 } });
    assert.equal(caps.run.maxTokens, 100_000);
    assert.equal(caps.child.maxToolCalls, 10);
    assert.equal(caps.run.maxCostMicros, CONFIGURED_CAPS.run.maxCostMicros);
    assert.equal(CONFIGURED_CAPS.run.maxTokens, 600_000, "the configured maximum is not changed");
  });

  it("refuses a cap above the maximum, naming the field and the maximum", () => {
    assert.throws(
      () => resolveCaps({ run: { maxTokens: 700_000 } }),
      (e) => isValidationError(e) && /run\.maxTokens: 700000 is above the configured maximum 600000/.test(e.message),
    );
  });

  it("refuses non-positive or fractional caps and unknown names, all at once", () => {
    assert.throws(
      () => resolveCaps({ child: { maxTurns: 0, maxTokens: 1.5 }, run: { bogus: 3 } as never }),
      (e) =>
        isValidationError(e) &&
        e.issues.length === 3 &&
        /child\.maxTurns: expected a positive integer/.test(e.message) &&
        /child\.maxTokens/.test(e.message) &&
        /run\.bogus: unknown cap/.test(e.message),
    );
  });

  it("picks Main's, an investigate-style Child's or a Child's caps", () => {
    const caps = resolveCaps();
    assert.equal(executorCapsFor({ role: "main", profile: null }, caps).kind, "main");
    assert.equal(executorCapsFor({ role: "child", profile: { id: "web-explorer" } }, caps).kind, "investigate");
    assert.equal(executorCapsFor({ role: "child", profile: { id: "compute-analyst" } }, caps).kind, "child");
  });
});

describe("price table", () => {
  it("matches dated model names to their family, longest name first", () => {
    assert.equal(priceOf("claude-sonnet-4-5-20250929"), PRICES.models["claude-sonnet-4-5"]);
    assert.equal(priceOf("claude-opus-4-1-20250805"), PRICES.models["claude-opus-4-1"]);
    assert.equal(priceOf("claude-opus-4-20250514"), PRICES.models["claude-opus-4"]);
    assert.equal(priceOf("scripted:child").inputUsdPerMTok, 0);
  });

  it("prices a newer model of a known family at the family's highest list price, and says it is not its own entry", () => {
    assert.equal(priceOf("claude-sonnet-5-5"), PRICES.families["claude-sonnet"]);
    assert.equal(priceOf("claude-haiku-5-5"), PRICES.families["claude-haiku"]);
    assert.equal(priceOf("claude-opus-5"), PRICES.families["claude-opus"]);
    assert.equal(priceOf("claude-sonnetish"), PRICES.unknown);
    for (const [family, p] of Object.entries(PRICES.families)) {
      const members = Object.entries(PRICES.models).filter(([name]) => name.includes(family.replace("claude-", "")));
      assert.ok(members.every(([, m]) => m.outputUsdPerMTok <= p.outputUsdPerMTok), family);
    }
  });

  it("prices an unknown model at the most expensive entry, never for free", () => {
    assert.equal(priceOf("some-new-model"), PRICES.unknown);
    assert.ok(Object.values(PRICES.models).every((p) => p.outputUsdPerMTok <= PRICES.unknown.outputUsdPerMTok));
  });

  it("computes cost in micro-USD exactly, rounding up only real fractions", () => {
    // claude-3-5-haiku: 0.80 / 4 USD per million tokens
    assert.equal(costMicros(priceOf("claude-3-5-haiku"), 3, 0), 3); // 2.4 µUSD, rounded up
    assert.equal(costMicros(priceOf("claude-3-5-haiku"), 10, 0), 8); // exactly 8, no float drift
    assert.equal(costMicros(priceOf("claude-sonnet-4-5"), 1_000_000, 1_000_000), 18_000_000);
    assert.equal(costMicros(priceOf("claude-haiku-4-5"), 1000, 500), 3500);
  });
});
