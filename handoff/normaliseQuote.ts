/**
 * The one normalisation a quote is compared under, by handoff validation
 * (locateQuote), the log and bundle verifiers and the checker alike:
 *
 * 1. Unicode: each character with its combining marks is put in NFKC form (a ligature "ﬁ" is "fi", a
 *    non-breaking space is a space, "…" is "..."); zero-width characters and soft hyphens are dropped.
 * 2. Quotes: ‘ ’ ‚ ‛ ′ and ` are ', “ ” „ ‟ « » ″ are ".
 * 3. Dashes: ‐ ‑ ‒ – — ― − are "-".
 * 4. Whitespace: every run of whitespace (line breaks included) is one space; the quote is trimmed.
 *
 * Nothing else: case, digits, punctuation and word order stay as written, so a quote that passes is the
 * source's text, typographically retyped at most.
 */
export interface Normalised {
  text: string;
  /** For each UTF-16 index of `text`, the index in the original where its character starts. */
  starts: number[];
  /** For each UTF-16 index of `text`, the index in the original just after its character. */
  ends: number[];
}

const DROP = /[\u200b-\u200d\u2060\ufeff\u00ad]/;
const SINGLE = /[\u2018\u2019\u201a\u201b\u2032`]/g;
const DOUBLE = /[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033]/g;
const DASH = /[\u2010-\u2015\u2212]/g;
// A character and the combining marks after it: NFKC composes within such a cluster only.
const CLUSTER = /[\s\S]\p{M}*/gu;

export function normaliseWithOffsets(raw: string): Normalised {
  let text = "";
  const starts: number[] = [];
  const ends: number[] = [];
  let space = false;
  for (const m of raw.matchAll(CLUSTER)) {
    const at = m.index!;
    const end = at + m[0].length;
    if (DROP.test(m[0])) continue;
    const folded = m[0].normalize("NFKC").replace(SINGLE, "'").replace(DOUBLE, '"').replace(DASH, "-");
    for (const ch of folded) {
      if (/\s/.test(ch)) {
        if (space) {
          ends[ends.length - 1] = end;
          continue;
        }
        space = true;
        text += " ";
        starts.push(at);
        ends.push(end);
        continue;
      }
      space = false;
      text += ch;
      for (let i = 0; i < ch.length; i++) {
        starts.push(at);
        ends.push(end);
      }
    }
  }
  return { text, starts, ends };
}

/** A quote as it is compared: normalised and trimmed. */
export const normaliseQuote = (raw: string): string => normaliseWithOffsets(raw).text.trim();

/** Whether two texts are the same quote under the normalisation. */
export const sameQuote = (a: string, b: string): boolean => normaliseQuote(a) === normaliseQuote(b);

/**
 * Every occurrence of `quote` in `text` under the normalisation, as UTF-16 [start, end) ranges of the
 * original `text`, first to last. An empty quote occurs nowhere.
 */
export function findQuote(text: string, quote: string, normalisedText: Normalised = normaliseWithOffsets(text)): { start: number; end: number }[] {
  const needle = normaliseQuote(quote);
  if (!needle) return [];
  const out: { start: number; end: number }[] = [];
  const hay = normalisedText.text;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    out.push({ start: normalisedText.starts[at], end: normalisedText.ends[at + needle.length - 1] });
  }
  return out;
}
