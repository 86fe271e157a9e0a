import type { HandoffFacts, QuotableBlob } from "./handoffFacts.ts";
import type { QuoteSource } from "./handoffSchema.ts";
import { findQuote } from "./normaliseQuote.ts";

export type QuoteVerdict =
  | { kind: "located"; source: QuoteSource; page?: number }
  | { kind: "unknown_tool_result" }
  /** The text occurs in none of the call's blobs. */
  | { kind: "not_in_source"; searched: readonly QuotableBlob[] }
  /** Found, but on another page than the one given (or the source has no pages). */
  | { kind: "wrong_page"; found: number | null }
  /** Some of the call's blobs could not be read, and the text was not in the others. */
  | { kind: "unchecked"; unread: readonly QuotableBlob[] };

const PAGE_MARKER = /^\[page (\d+)\]$/gm;

/**
 * Finds a quote in the stored text of the tool call it cites, verbatim under
 * the one normalisation of whitespace, quotes and Unicode (normaliseQuote.ts): the
 * first occurrence (on the page given, when one is) in the first of the call's
 * blobs that holds it. Offsets are Unicode code points, so a reader in any
 * language finds the same text at them. Pure: the texts come from the facts.
 */
export function locateQuote(quote: { toolUseId: string; text: string; page?: number }, facts: HandoffFacts): QuoteVerdict {
  if (!facts.toolResultIds.has(quote.toolUseId)) return { kind: "unknown_tool_result" };
  const blobs = facts.quotable?.get(quote.toolUseId) ?? [];
  const unread: QuotableBlob[] = [];
  let elsewhere: number | null | undefined;
  for (const blob of blobs) {
    const text = facts.blobTexts?.get(blob.sha256);
    if (text === undefined) {
      unread.push(blob);
      continue;
    }
    const pages = pagesOf(text);
    for (const { start: at, end } of findQuote(text, quote.text)) {
      const page = pageAt(pages, at);
      if (quote.page !== undefined && page !== quote.page) {
        elsewhere ??= page;
        continue;
      }
      const charStart = codePoints(text, 0, at);
      const source = { sha256: blob.sha256, charStart, charEnd: charStart + codePoints(text, at, end) };
      return page === null ? { kind: "located", source } : { kind: "located", source, page };
    }
  }
  if (elsewhere !== undefined) return { kind: "wrong_page", found: elsewhere };
  if (unread.length) return { kind: "unchecked", unread };
  return { kind: "not_in_source", searched: blobs };
}

/** Where each "[page N]" marker of a document's text starts (document_read marks PDF pages so). */
export function pagesOf(text: string): { at: number; page: number }[] {
  return [...text.matchAll(PAGE_MARKER)].map((m) => ({ at: m.index, page: Number(m[1]) }));
}

export function pageAt(pages: readonly { at: number; page: number }[], at: number): number | null {
  let found: number | null = null;
  for (const p of pages) if (p.at <= at) found = p.page;
  return found;
}

/** Code points in text[from, to) (UTF-16 indexes). */
function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === from || (text.charCodeAt(i - 1) & 0xfc00) !== 0xd800) n++;
  }
  return n;
}

/** The text at code point offsets [start, end) of `text`, or null when they are out of range: how a verifier reads a located quote back. */
export function textAtCodePoints(text: string, start: number, end: number): string | null {
  const chars = Array.from(text);
  if (start < 0 || end < start || end > chars.length) return null;
  return chars.slice(start, end).join("");
}
