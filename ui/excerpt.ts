/** A quote shown inside the text around it, cut from its text blob at the recorded offsets. */
export interface Excerpt {
  before: string;
  quote: string;
  after: string;
  /** Whether the blob's text at the offsets is the recorded quote; false: the page shows what is there. */
  matches: boolean;
  /** Whether there is more text before `before` and after `after`. */
  clippedStart: boolean;
  clippedEnd: boolean;
}

/** Code points of context on each side of the quote. */
export const CONTEXT_CHARS = 240;

/**
 * The recorded offsets count Unicode code points (projections/claimTypes.ts),
 * so the text is split into code points, not UTF-16 units, before it is cut.
 * Null when the offsets fall outside the text.
 */
export function excerptOf(text: string, quote: string, charStart: number, charEnd: number, context = CONTEXT_CHARS): Excerpt | null {
  const points = Array.from(text);
  if (!Number.isInteger(charStart) || !Number.isInteger(charEnd) || charStart < 0 || charEnd < charStart || charEnd > points.length) return null;
  const from = Math.max(0, charStart - context);
  const to = Math.min(points.length, charEnd + context);
  const at = points.slice(charStart, charEnd).join("");
  return {
    before: points.slice(from, charStart).join(""),
    quote: at,
    after: points.slice(charEnd, to).join(""),
    matches: at === quote,
    clippedStart: from > 0,
    clippedEnd: to < points.length,
  };
}
