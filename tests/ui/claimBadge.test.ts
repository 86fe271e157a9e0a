import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ClaimChain, FindingChain } from "../../projections/claimTypes.ts";
import { claimBadge } from "../../ui/claimBadge.ts";
import { excerptOf } from "../../ui/excerpt.ts";

const finding = (quotes: { text: string; page?: number }[], toolCalls = quotes.length): FindingChain =>
  ({
    executorId: "child-1",
    finding: 0,
    claim: "x",
    confidence: "high",
    quotes: quotes.map((q) => ({ text: q.text, page: q.page ?? null, blob: null, toolUseId: "t1", call: null, source: null })),
    toolCalls: Array.from({ length: toolCalls }, () => ({ toolUseId: "t1" })),
  }) as unknown as FindingChain;

const claim = (text: string, basis: ClaimChain["basis"], findings: FindingChain[]) => ({ text, basis, findings });

describe("a claim's badge", () => {
  test("supported when every number it states is in its quotes (in any of the forms the checker matches)", () => {
    const c = claim("The charge falls from 0.38% to 0.29%, about 1,200 funds.", "observed", [finding([{ text: "reduced from 0.38% to 0.29% across 1.2k funds" }])]);
    assert.equal(claimBadge(c).badge, "supported");
  });

  test("a number mismatch names the invented number; the quote's source text or its page can hold a number too", () => {
    const c = claim("The charge falls to 0.19%.", "observed", [finding([{ text: "reduced from 0.38% to 0.29%" }])]);
    const b = claimBadge(c);
    assert.equal(b.badge, "number_mismatch");
    assert.match(b.why, /0\.19%/);
    assert.equal(claimBadge(c, ["… the charge will be 0.19% from 2027 …"]).badge, "supported");
    assert.equal(claimBadge(claim("The prospectus discloses on page 2: risk", "observed", [finding([{ text: "risk", page: 2 }])])).badge, "supported");
    assert.equal(claimBadge(claim("The prospectus discloses on page 3: risk", "observed", [finding([{ text: "risk", page: 2 }])])).badge, "number_mismatch");
  });

  test("judgment and no evidence; the checker's verdict, when given, wins", () => {
    assert.equal(claimBadge(claim("Add it if 12% fits.", "judgment", [])).badge, "judgment");
    assert.equal(claimBadge(claim("Spreads were not found.", "not_collected", [])).badge, "no_evidence");
    assert.equal(claimBadge(claim("It is cheap.", "observed", [finding([], 0)])).badge, "no_evidence");
    assert.equal(claimBadge(claim("Overlap is 7.2%.", "observed", [finding([], 1)])).badge, "supported", "a computed result, no quote");
    const checked = { badge: "number_mismatch" as const, why: "check_completed: 7.2% not in the artifact" };
    assert.deepEqual(claimBadge(claim("Overlap is 7.2%.", "observed", [finding([], 1)]), [], checked), checked);
  });
});

describe("a quote in context", () => {
  test("offsets count code points, so text after an astral character is cut right", () => {
    const text = "😀 intro. The fee is 0.29% from October. Tail.";
    const start = Array.from(text).indexOf("T");
    const e = excerptOf(text, "The fee is 0.29%", start, start + 16, 5)!;
    assert.deepEqual({ before: e.before, quote: e.quote, after: e.after, matches: e.matches }, { before: "tro. ", quote: "The fee is 0.29%", after: " from", matches: true });
    assert.equal(e.clippedStart, true);
    assert.equal(e.clippedEnd, true);
  });

  test("a quote not at its offsets is shown as what is there, marked; offsets outside the text give nothing", () => {
    assert.equal(excerptOf("abcdef", "cd", 1, 3)!.matches, false);
    assert.equal(excerptOf("abcdef", "cd", 4, 9), null);
  });
});
