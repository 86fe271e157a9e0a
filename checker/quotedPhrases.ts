/**
 * The phrases an answer quotes: text between double quotes, straight ("…") or curly (“…”), of two words
 * or more (a single quoted word is a term being named, not a quote). A straight quote opens and the next
 * one closes, so a JSON object written into a claim yields its keys and string values, one word each,
 * and no phrase.
 */
export interface QuotedPhrase {
  text: string;
  /** Offset of its first character (after the opening quote) in the text. */
  offset: number;
}

const QUOTED = /"([^"\n]{3,}?)"|\u201c([^\u201d]{3,}?)\u201d/g;

export function quotedPhrases(text: string): QuotedPhrase[] {
  const out: QuotedPhrase[] = [];
  for (const m of text.matchAll(QUOTED)) {
    const phrase = (m[1] ?? m[2]).trim();
    if (!/\S\s+\S/.test(phrase)) continue;
    out.push({ text: phrase, offset: m.index! + 1 });
  }
  return out;
}

/** The text with its quoted phrases blanked (offsets kept): what the answer says in its own words. */
export function withoutQuotedPhrases(text: string, phrases: readonly QuotedPhrase[]): string {
  let out = text;
  for (const p of phrases) out = out.slice(0, p.offset) + " ".repeat(p.text.length) + out.slice(p.offset + p.text.length);
  return out;
}
