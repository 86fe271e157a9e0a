import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { findQuote, locateQuote, normaliseQuote, sameQuote, textAtCodePoints } from "../../handoff/index.ts";

const SOURCE = "The fund\u2019s \u201congoing charge\u201d will be reduced\nfrom 0.38%\u00a0to 0.29% \u2014 e\ufb00ective 1 October.";

describe("one normalisation of whitespace, quotes and Unicode, for handoffs and the checker alike", () => {
  it("a quote retyped with straight quotes, plain spaces, hyphens and ligatures undone is the source's text", () => {
    const typed = `The fund's "ongoing charge" will be reduced from 0.38% to 0.29% - effective 1 October.`;
    assert.equal(normaliseQuote(typed), normaliseQuote(SOURCE));
    const [at] = findQuote(SOURCE, typed);
    assert.deepEqual(at, { start: 0, end: SOURCE.length });
  });

  it("words, digits and case are not normalised: a changed figure or word is another quote", () => {
    assert.deepEqual(findQuote(SOURCE, "reduced from 0.38% to 0.28%"), []);
    assert.deepEqual(findQuote(SOURCE, "Reduced from 0.38%"), []);
    assert.ok(!sameQuote("cut from 0.38%", "reduced from 0.38%"));
  });

  it("locateQuote finds a retyped quote and records offsets that read back the source's own text", () => {
    const facts = { toolResultIds: new Set(["t1"]), artifacts: new Map(), citationsSeen: new Set<string>(), quotable: new Map([["t1", [{ sha256: "a".repeat(64), label: "x" }]]]), blobTexts: new Map([["a".repeat(64), `[page 2]\nIntro.\n${SOURCE}`]]) };
    const v = locateQuote({ toolUseId: "t1", text: "will be reduced from 0.38% to 0.29%" }, facts);
    assert.equal(v.kind, "located");
    if (v.kind !== "located") return;
    assert.equal(v.page, 2);
    const back = textAtCodePoints(facts.blobTexts.get("a".repeat(64))!, v.source.charStart, v.source.charEnd)!;
    assert.equal(back, "will be reduced\nfrom 0.38%\u00a0to 0.29%");
    assert.ok(sameQuote(back, "will be reduced from 0.38% to 0.29%"));
  });

  it("any text is found in itself, at its start, under the normalisation (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 10 }), (s, tail) => {
        fc.pre(normaliseQuote(s) !== "");
        const hits = findQuote(s + tail, s);
        assert.ok(hits.length > 0);
        assert.ok(sameQuote((s + tail).slice(hits[0].start, hits[0].end), s));
      }),
    );
  });
});
