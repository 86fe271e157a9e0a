import assert from "node:assert/strict";
import { test } from "node:test";
import { type HandoffFacts, validateHandoff } from "../../handoff/index.ts";
import { textAtCodePoints } from "../../handoff/locateQuote.ts";
import { facts, validCandidate } from "./fixtures.ts";

const PAGE_TEXT = "ADIV fees\n\nThe ongoing charge is reduced from 0.38% to 0.29% per year,\neffective 2026-10-01.\n";
const PDF_TEXT = "[page 1]\nCover\n[page 2]\nDividend concentration risk: the fund's income depends on few sectors.\n[page 3]\nSecurities lending risk (5)\n";
const PAGE_SHA = "a".repeat(64);
const PDF_SHA = "b".repeat(64);

/** The fixture's facts, with the text blobs behind two of its tool calls loaded. */
const withTexts: HandoffFacts = {
  ...facts,
  quotable: new Map([
    ["toolu_quote", [{ sha256: PAGE_SHA, label: "source https://etf.corpus.test/adiv-fee-announcement/" }]],
    ["toolu_read", [{ sha256: PDF_SHA, label: "source blob:prospectus" }]],
  ]),
  blobTexts: new Map([
    [PAGE_SHA, PAGE_TEXT],
    [PDF_SHA, PDF_TEXT],
  ]),
};

function quoting(...quotes: { toolUseId: string; text: string; page?: number }[]) {
  const c = validCandidate() as ReturnType<typeof validCandidate> & { findings: { evidence: { quotes?: unknown[] } }[] };
  c.findings[0]!.evidence.quotes = quotes;
  return c;
}

test("a quote found verbatim in its call's source text is accepted and located: blob, character offsets, page", () => {
  const text = "reduced from 0.38% to 0.29% per year,\neffective 2026-10-01.";
  const risk = "Dividend concentration risk: the fund's income depends on few sectors.";
  const verdict = validateHandoff(quoting({ toolUseId: "toolu_quote", text }, { toolUseId: "toolu_read", text: risk, page: 2 }), withTexts);
  assert.ok(verdict.ok, verdict.ok ? "" : verdict.feedback);
  const [fee, pdf] = (verdict.handoff.findings[0]!.evidence.quotes ?? []) as { text: string; page?: number; source?: { sha256: string; charStart: number; charEnd: number } }[];
  assert.deepEqual(fee!.source, { sha256: PAGE_SHA, charStart: PAGE_TEXT.indexOf(text), charEnd: PAGE_TEXT.indexOf(text) + text.length });
  assert.equal(fee!.page, undefined);
  assert.equal(pdf!.page, 2);
  assert.equal(PDF_TEXT.slice(pdf!.source!.charStart, pdf!.source!.charEnd), risk);
});

test("offsets count characters (code points), not UTF-16 units, so any language's reader finds the quote", () => {
  const sha = "c".repeat(64);
  const text = "Emoji 😀 then: the quoted part.";
  const f: HandoffFacts = { ...withTexts, quotable: new Map([["toolu_quote", [{ sha256: sha, label: "x" }]]]), blobTexts: new Map([[sha, text]]) };
  const verdict = validateHandoff(quoting({ toolUseId: "toolu_quote", text: "the quoted part." }), f);
  assert.ok(verdict.ok);
  const q = verdict.handoff.findings[0]!.evidence.quotes![0]!;
  assert.deepEqual([...text].slice(q.source!.charStart, q.source!.charEnd).join(""), "the quoted part.");
});

test("a quote its sources do not contain is refused with a repair message, and the salvage drops it", () => {
  const verdict = validateHandoff(quoting({ toolUseId: "toolu_quote", text: "reduced from 0.38% to 0.19% per year" }), withTexts);
  assert.equal(verdict.ok, false);
  if (verdict.ok) return;
  assert.equal(verdict.issues[0]?.kind, "quote_not_in_source");
  assert.deepEqual(verdict.issues[0]?.path, ["findings", 0, "evidence", "quotes", 0, "text"]);
  assert.match(verdict.feedback, /findings\[0\]\.evidence\.quotes\[0\]\.text: the quoted text does not occur verbatim/);
  assert.match(verdict.feedback, /adiv-fee-announcement/);
  assert.equal(verdict.salvage.findings[0]!.evidence.quotes, undefined);
  assert.ok(verdict.salvage.caveats.some((c) => /quotes\[0\] dropped/.test(c)));
  assert.ok(validateHandoff(verdict.salvage, withTexts).ok, "the salvage passes validation");
});

test("under the one normalisation a line break squashed to a space is the source's text, but a space dropped is not", () => {
  const verdict = validateHandoff(quoting({ toolUseId: "toolu_quote", text: "per year, effective 2026-10-01." }), withTexts);
  assert.ok(verdict.ok);
  const source = verdict.handoff.findings[0]!.evidence.quotes![0]!.source!;
  assert.match(textAtCodePoints(withTexts.blobTexts!.get(source.sha256)!, source.charStart, source.charEnd)!, /^per year,\s+effective 2026-10-01\.$/);
  assert.equal(validateHandoff(quoting({ toolUseId: "toolu_quote", text: "per year,effective 2026-10-01." }), withTexts).ok, false);
});

test("a quote citing a tool call the executor never made, or a wrong page, is refused naming what to fix", () => {
  const unknown = validateHandoff(quoting({ toolUseId: "toolu_invented", text: "Cover" }), withTexts);
  assert.ok(!unknown.ok && unknown.issues[0]?.kind === "quote_unknown_tool_result");
  const page = validateHandoff(quoting({ toolUseId: "toolu_read", text: "Cover", page: 3 }), withTexts);
  assert.ok(!page.ok);
  if (page.ok) return;
  assert.equal(page.issues[0]?.kind, "quote_wrong_page");
  assert.match(page.issues[0]!.message, /page 1, not page 3/);
});

test("a quote whose source text could not be read is not accepted unchecked", () => {
  const verdict = validateHandoff(quoting({ toolUseId: "toolu_quote", text: "0.29%" }), { ...withTexts, blobTexts: new Map() });
  assert.ok(!verdict.ok && verdict.issues[0]?.kind === "quote_unchecked");
});

test("the runtime's location is recomputed, never taken from the model", () => {
  const c = quoting({ toolUseId: "toolu_quote", text: "0.29%" });
  (c.findings[0]!.evidence.quotes![0] as Record<string, unknown>).source = { sha256: PDF_SHA, charStart: 0, charEnd: 5 };
  const verdict = validateHandoff(c, withTexts);
  assert.ok(verdict.ok);
  assert.equal(verdict.handoff.findings[0]!.evidence.quotes![0]!.source!.sha256, PAGE_SHA);
});
