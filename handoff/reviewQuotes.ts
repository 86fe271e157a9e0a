import type { HandoffFacts, QuotableBlob } from "./handoffFacts.ts";
import { type QuoteVerdict, locateQuote } from "./locateQuote.ts";
import { asArray, asRecord } from "./rawShape.ts";
import type { HandoffIssue, KeptReference } from "./handoffIssue.ts";

/** A quote as the model wrote it, read defensively; null when the schema will report it. */
export function rawQuote(raw: unknown): { toolUseId: string; text: string; page?: number } | null {
  const q = asRecord(raw);
  if (typeof q.toolUseId !== "string" || typeof q.text !== "string" || q.text === "") return null;
  const page = typeof q.page === "number" ? q.page : undefined;
  return { toolUseId: q.toolUseId.trim(), text: q.text, ...(page === undefined ? {} : { page }) };
}

/** Checks every quote of one finding against the stored text of the call it cites (locateQuote). */
export function reviewQuotes(raw: unknown, at: (string | number)[], facts: HandoffFacts): { issues: HandoffIssue[]; kept: KeptReference[] } {
  const issues: HandoffIssue[] = [];
  const kept: KeptReference[] = [];
  asArray(raw).forEach((entry, j) => {
    const quote = rawQuote(entry);
    if (!quote) return;
    const verdict = locateQuote(quote, facts);
    const path = [...at, j];
    if (verdict.kind === "located") kept.push({ path, ref: `quote of ${quote.toolUseId}` });
    else issues.push(quoteIssue(path, quote, verdict));
  });
  return { issues, kept };
}

function quoteIssue(path: (string | number)[], quote: { toolUseId: string; page?: number }, verdict: Exclude<QuoteVerdict, { kind: "located" }>): HandoffIssue {
  const id = quote.toolUseId;
  switch (verdict.kind) {
    case "unknown_tool_result":
      return {
        path: [...path, "toolUseId"],
        ref: id,
        kind: "quote_unknown_tool_result",
        message: `"${id}" is not the id of a successful tool call recorded for this executor; a quote must cite the call whose output shows the text.`,
      };
    case "not_in_source":
      return {
        path: [...path, "text"],
        ref: id,
        kind: "quote_not_in_source",
        message: `the quoted text does not occur verbatim in what tool call ${id} read (${labels(verdict.searched)}). Copy it character for character from that call's output (same spaces, line breaks and punctuation; no ellipsis, no paraphrase), cite the call whose output shows it, or drop this one quote.`,
      };
    case "wrong_page":
      return {
        path: [...path, "page"],
        ref: id,
        kind: "quote_wrong_page",
        message:
          verdict.found === null
            ? `what tool call ${id} read has no pages; leave page out of this quote.`
            : `the quoted text is on page ${verdict.found}, not page ${quote.page}: set page to ${verdict.found}.`,
      };
    case "unchecked":
      return {
        path,
        ref: id,
        kind: "quote_unchecked",
        message: `the stored text of what tool call ${id} read (${labels(verdict.unread)}) could not be read back, so this quote cannot be checked; quote another call's output, or drop this one quote.`,
      };
  }
}

const labels = (blobs: readonly QuotableBlob[]) => (blobs.length ? blobs.map((b) => b.label).join("; ") : "it stored no text");
