/**
 * Whether a PDF page's text layer is usable: pdf.js returns text for a page whose font has no usable
 * character map, but it is glyph noise ("!#$%&'()*" with a few letters), not the page's words. A page is
 * "no usable text layer" when, of its visible characters (dot leaders of a table of contents collapsed),
 * fewer than half are letters or digits, or more than a tenth are undecodable glyphs (U+FFFD, private-use
 * code points, control characters). An empty page is "no text layer", reported apart.
 */
export interface TextUsability {
  usable: boolean;
  /** Letters and digits, as a share of the visible characters. */
  readableShare: number;
  /** Undecodable glyphs, as a share of the visible characters. */
  undecodableShare: number;
}

const LEADERS = /(?:[.·…_-]\s?){3,}/g;

export function textUsability(text: string): TextUsability {
  const visible = [...text.replace(LEADERS, " ").replace(/\s+/g, "")];
  if (visible.length === 0) return { usable: true, readableShare: 1, undecodableShare: 0 };
  const readable = visible.filter((c) => /[\p{L}\p{N}]/u.test(c) && !/\p{Co}/u.test(c)).length / visible.length;
  const undecodable = visible.filter((c) => /[\ufffd\p{Co}\p{Cc}]/u.test(c)).length / visible.length;
  return { usable: readable >= 0.5 && undecodable <= 0.1, readableShare: readable, undecodableShare: undecodable };
}
