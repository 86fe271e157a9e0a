import assert from "node:assert/strict";
import { test } from "node:test";
import { partialHandoff, validateHandoff } from "../../handoff/index.ts";
import { facts, NOTE_MARKER, validCandidate } from "./fixtures.ts";

const REASON = "handoff not repaired after 2 attempts";

test("a salvage with valid work becomes a partial, low-confidence handoff naming the reason", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults.push(NOTE_MARKER);
  const verdict = validateHandoff(c, facts);
  assert.ok(!verdict.ok);
  const h = partialHandoff(verdict.salvage, REASON);
  assert.equal(h.executionState, "partial");
  assert.equal(h.confidence, "low");
  assert.ok(h.gaps.includes(REASON));
  assert.equal(h.findings.length, 2, "valid findings survive a failed repair");
  assert.ok(validateHandoff(h, facts).ok);
});

test("with nothing valid the handoff is not_executed", () => {
  for (const salvage of [null, partialHandoff(null, "x")]) {
    const h = partialHandoff(salvage, REASON);
    assert.equal(h.executionState, "not_executed");
    assert.equal(h.confidence, "low");
    assert.ok(h.gaps.includes(REASON));
    assert.ok(validateHandoff(h, facts).ok);
  }
});

test("unknown effects are never downgraded to partial or not executed", () => {
  const h = partialHandoff({ ...partialHandoff(null, "x"), executionState: "unknown_effects" }, REASON);
  assert.equal(h.executionState, "unknown_effects");
});
