/**
 * The phrases an answer quotes: text between double quotes, straight ("…"), curly (“…”), low („…“ or „…”)
 * or guillemets («…», »…«), of two words or more (a single quoted word is a term being named, not a quote).
 * A straight quote opens and the next one closes, so a JSON object written into a claim yields its keys and
 * string values, one word each, and no phrase. Single quotes are not read as quotes: ’ is also an apostrophe.
 */
export interface QuotedPhrase {
  text: string;
  /** Offset of its first character (after the opening quote) in the text. */
  offset: number;
}

const QUOTED = /"([^"\n]{3,}?)"|\u201c([^\u201d]{3,}?)\u201d|\u201e([^\u201c\u201d]{3,}?)[\u201c\u201d]|\u00ab([^\u00bb]{3,}?)\u00bb|\u00bb([^\u00ab]{3,}?)\u00ab/g;

export function quotedPhrases(text: string): QuotedPhrase[] {
  const out: QuotedPhrase[] = [];
  for (const m of text.matchAll(QUOTED)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5];
    const phrase = raw.trim();
    if (!/\S\s+\S/.test(phrase)) continue;
    // Offset of the phrase itself: past the opening mark and any space after it (« guillemets spaced as in French »).
    out.push({ text: phrase, offset: m.index! + 1 + (raw.length - raw.trimStart().length) });
  }
  return out;
}

/** The text with its quoted phrases blanked (offsets kept): what the answer says in its own words. */
export function withoutQuotedPhrases(text: string, phrases: readonly QuotedPhrase[]): string {
  let out = text;
  for (const p of phrases) out = out.slice(0, p.offset) + " ".repeat(p.text.length) + out.slice(p.offset + p.text.length);
  return out;
}
