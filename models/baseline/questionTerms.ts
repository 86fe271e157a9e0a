/**
 * The words of a question a scripted researcher can search and match with:
 * content words (no function words), and the facets a question asks about.
 * Plain string rules, so the baseline's behaviour is the same on every run.
 */

const STOP = new Set(
  (
    "a an the and or but if of to in on at by for from with without about into onto over under as than then " +
    "is are was were be been being do does did done has have had having can could should would will shall may might must " +
    "what which who whom whose when where why how much many long often far " +
    "this that these those it its it's they them their there here he she his her we our you your i me my " +
    "not no nor so such too very just also only both each every all any some more most other another same own " +
    "according say says said tell give list name named state states stated report reported read page pages document " +
    "et al vs per via up out off again once"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** The question's content words, lowercased, in order, once each (URLs left out). */
export function contentWords(text: string): string[] {
  const words = (text.replace(/https?:\/\/\S+/g, " ").match(WORD) ?? []).map((w) => w.toLowerCase().replace(/['’]s$/, ""));
  return [...new Set(words.filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w))))];
}

/** Names and figures of a question (capitalised words after its first, numbers): the subject every facet shares. */
export function subjectWords(text: string): string[] {
  const words = text.replace(/https?:\/\/\S+/g, " ").match(WORD) ?? [];
  return [...new Set(words.slice(1).filter((w) => /^\p{Lu}/u.test(w) || /\d/.test(w)).map((w) => w.toLowerCase().replace(/['’]s$/, "")))].filter((w) => !STOP.has(w));
}

const CLAUSE = /\?|;|,?\s+and\s+(?=(?:what|which|who|when|where|how|why|does|did|do|is|are|was|were)\b)/i;

/**
 * The facets a question asks about: its clauses ("What does X cost, and what
 * CPU does it have?" is two), each with the question's subject words added, so
 * a Child searching one facet still names what it is about. At most three.
 */
export function facetsOf(question: string): string[] {
  const all = question
    .replace(/https?:\/\/\S+/g, " ")
    .split(CLAUSE)
    .map((c) => c.trim())
    .filter((c) => contentWords(c).length > 0);
  // The subject is named in the first clause; a later clause ("what CPU does it have") refers back to it.
  const subject = subjectWords(all[0] ?? question);
  const clauses = all.filter((c, i) => i === 0 || contentWords(c).some((w) => !subject.includes(w)));
  if (clauses.length <= 1) return [question.trim()];
  return clauses.slice(0, 3).map((c) => {
    const missing = subject.filter((w) => !contentWords(c).includes(w));
    return missing.length ? `${c} (${missing.join(" ")})` : c;
  });
}

/** URLs the text names, as written (a trailing full stop or bracket left out). */
export const urlsIn = (text: string): string[] => [...new Set((text.match(/https?:\/\/[^\s"'<>)\]]+/g) ?? []).map((u) => u.replace(/[.,;:]+$/, "")))];

/** A crude stem: a long word's first five letters, so "investment" meets "investor" and "shipped" meets "shipping". */
const stem = (w: string) => (w.length > 5 && !/\d/.test(w) ? w.slice(0, 5) : w);

/** The question's terms a passage holds (each term once). */
export function termsHeld(passage: string, terms: readonly string[]): string[] {
  const tokens = (passage.match(WORD) ?? []).map((t) => t.toLowerCase().replace(/['’]s$/, ""));
  return terms.filter((term) => {
    const s = stem(term);
    // A figure matches only itself ("3" is not "36,254"), a short word itself with a plain ending ("cost", "costs"; "pi"
    // is not "Pitcairn"), a long word by its stem.
    if (/\d/.test(term)) return tokens.includes(term);
    if (term.length < 5) return tokens.some((t) => t === term || t.replace(/(s|es|ed|ing)$/, "") === term || term.replace(/(s|es)$/, "") === t);
    return tokens.some((t) => t === term || t.startsWith(s) || (t.length >= 4 && !/\d/.test(t) && term.startsWith(t)));
  });
}
