import { type StatedNumber, statedNumbers, supportedBy } from "./numbers.ts";

/**
 * Where a number of a claim must stand in the text it cites: in the same unit (a sentence, a line — a list
 * item or table row —, or a PDF sentence run across line breaks) as the claim's subject, not anywhere in
 * the source. A unit holds the subject when it shares a subject term with the claim: a word of three letters
 * or more that is not a common word, a month or a unit, taken from the claim's clause around the number and
 * from the claim's lead (what comes before its first colon: "Bitcoin" in "…, Bitcoin: active addresses …").
 */
const COMMON = new Set(
  `the and for with from that this these those than then was were are has have had not but its it's their they them into onto over under per
  out off all any each one two three four five six seven eight nine ten been being will would can could should may might must also more most
  less least very such only about after before between during while where when which who whom whose what why how other own same some there
  here both either neither nor yet our your his her him she you we us a an of to in on at by as is be or if so do does did done up down
  new high low year years day days week weeks month months said says say according reported report reports lists list listed states stated
  shows show published publish page pages total rate rates level levels value values number numbers figure figures date dates
  january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
  monday tuesday wednesday thursday friday saturday sunday percent usd eur gbp bps points basis`
    .split(/\s+/)
    .filter(Boolean),
);

/** A word as compared: lowercased, a plural "s" dropped ("validators" is "validator"). */
const stem = (w: string) => (w.length > 4 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w);

/** The subject terms of a text: lowercased words of 3+ letters, not common words. */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const [w] of text.matchAll(/\p{L}[\p{L}\p{N}]*/gu)) {
    const word = w.toLowerCase();
    if (word.length >= 3 && !COMMON.has(word)) out.add(stem(word));
  }
  return out;
}

/** The names of a text: capitalised words after its first, all-capitals tickers ("Bitcoin", "ADIV"). */
export function namesOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\p{Lu}[\p{L}\p{N}]+/gu)) {
    const word = m[0].toLowerCase();
    if (m.index! > 0 && word.length >= 3 && !COMMON.has(word)) out.add(stem(word));
  }
  return out;
}

/**
 * The units of a text: its lines (a table row, a list item), and its sentences with single line breaks
 * joined (a PDF wraps its lines), table rows and list items kept apart.
 */
export function unitsOf(text: string): string[] {
  const lines = text.split(/\n/).map((l) => l.trim()).filter(Boolean);
  // A table row or list item is a unit of its own: it is never joined to the next line as a wrapped sentence.
  // An HTML page read as raw text: a table cell ends with a column bar, a block element ends its unit.
  const blocks = text.replace(/<\/t[dh]>/gi, " | ").replace(/<\/(?:p|tr|li|h\d|div|dd|dt|caption|title|table|thead|tbody|pre|blockquote)>|<br\s*\/?>/gi, "\n\n");
  const separated = blocks.replace(/^.*(?:\||\t).*$|^\s*(?:[-*•]|\d+[.)])\s.*$/gm, (row) => `\n\n${row}\n\n`);
  const sentences = separated
    .split(/\n\s*\n|(?<=[.!?])\s+(?=[A-Z(“"])/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  return [...new Set([...lines, ...sentences])];
}

export interface UnitIndex {
  units: { terms: Set<string>; numbers: StatedNumber[]; names: Set<string> }[];
}

/** The names of a unit: namesOf, and its first word too when it is not a common word (a table row's entity, "Bitcoin | 712,480 | …"). */
const unitNames = (unit: string): Set<string> => {
  const first = /^\p{Lu}[\p{L}\p{N}]+/u.exec(unit)?.[0].toLowerCase();
  return new Set([...namesOf(unit), ...(first && first.length >= 3 && !COMMON.has(first) ? [stem(first)] : [])]);
};

/** The texts' units, each with its terms, numbers and names, built once a check. */
export function indexUnits(texts: readonly string[]): UnitIndex {
  return { units: texts.flatMap(unitsOf).map((u) => ({ terms: termsOf(u), numbers: statedNumbers(u), names: unitNames(u) })) };
}

const shares = (a: Set<string>, b: Set<string>): boolean => {
  for (const t of a) if (b.has(t)) return true;
  return false;
};

/** What a number of a claim is said of: the words around it, and the names of the claim's lead. */
export interface Subject {
  /** Terms between the number and its neighbours in the same clause (the previous and next number, or the clause's ends). */
  around: Set<string>;
  /** Names before the claim's first colon, when the number comes after it ("Bitcoin" in "…, Bitcoin: active addresses 712,480"). */
  lead: Set<string>;
  /** The names of its clause and its lead: the entities the number is said of. */
  names: Set<string>;
}

/** The subject of the number at `at` of a claim, given the claim's numbers. */
export function subjectAround(claim: string, at: { offset: number; text: string }, numbers: readonly { offset: number; text: string }[]): Subject {
  const clauseStart = Math.max(claim.lastIndexOf(";", at.offset), claim.lastIndexOf(". ", at.offset)) + 1;
  const ends = [claim.indexOf(";", at.offset), claim.indexOf(". ", at.offset)].filter((i) => i >= 0);
  const clauseEnd = ends.length ? Math.min(...ends) : claim.length;
  const before = numbers.filter((n) => n.offset < at.offset && n.offset >= clauseStart).at(-1);
  const after = numbers.find((n) => n.offset > at.offset && n.offset < clauseEnd);
  const from = before ? before.offset + before.text.length : clauseStart;
  let around = termsOf(claim.slice(from, after ? after.offset : clauseEnd));
  // A number right after another ("2026-06-30") is said of what the first is said of.
  if (around.size === 0) around = termsOf(claim.slice(clauseStart, clauseEnd));
  const colon = claim.indexOf(":");
  const lead = colon > 0 && colon < at.offset ? namesOf(claim.slice(0, colon)) : new Set<string>();
  return { around, lead, names: new Set([...lead, ...unitNames(claim.slice(clauseStart, clauseEnd).trimStart())]) };
}

/** Whether some unit that states the number also holds the claim's subject: a word around it, or a name of its lead. */
export function standsBySubject(n: StatedNumber, subject: Subject, index: UnitIndex): boolean {
  return index.units.some((u) => supportedBy(n, u.numbers) && (shares(subject.around, u.terms) || shares(subject.lead, u.terms)));
}

/**
 * Whether the number is said of another entity than the one that states it: a name of its subject stands in a
 * cited unit, no unit stating the number holds any of its subject's names, and each unit stating it names an
 * entity the claim (`claimTerms`, every term of its text) does not ("Ethereum: active addresses 712,480" when only
 * Bitcoin's row states 712,480). A row that names no entity (a table's "2018 census | 4,699,755" under its
 * header) is not another's. A quote the claim rests on does not vouch for such a number.
 */
export function saidOfAnother(n: StatedNumber, subject: Subject, index: UnitIndex, claimTerms: Set<string>): boolean {
  if (!index.units.some((u) => shares(subject.names, u.terms))) return false;
  const stating = index.units.filter((u) => supportedBy(n, u.numbers));
  return stating.length > 0 && stating.every((u) => !shares(subject.names, u.terms) && [...u.names].some((name) => !claimTerms.has(name)));
}

/** Whether any unit states the number (anywhere in the cited texts). */
export function statedAnywhere(n: StatedNumber, index: UnitIndex): boolean {
  return index.units.some((u) => supportedBy(n, u.numbers));
}

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DATE = new RegExp(`\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}\\s+${MONTH}(?:\\s+\\d{4})?\\b|\\b${MONTH}\\s+\\d{1,2}(?:,\\s*\\d{4})?\\b|\\b${MONTH}\\s+\\d{4}\\b`, "gi");

/**
 * Whether the number at `offset` is part of a date ("2026-06-30", "29 November 2026", "June 2026"): a date
 * says when, not how much, and is held against the whole cited text, not a subject's unit.
 */
export function isDatePart(text: string, offset: number): boolean {
  for (const m of text.matchAll(DATE)) if (m.index! <= offset && offset < m.index! + m[0].length) return true;
  return false;
}

// Words that say a figure is computed from others: "a cut of 9 bps", "up 1.8%", "twice", "the gap".
const CHANGE = "cut|cuts|fall|fell|falls|drop|dropped|drops|decline[sd]?|rise|rises|rose|increase[sd]?|decrease[sd]?|reduction|reduced|lower(?:ed)?|higher|change[sd]?|difference|differs?|gap|spread|up|down|ratio|times|twice|total(?:led|s)?|sum|combined|together|more|less|fewer|gain(?:ed|s)?|loss|lost|shrank|grew|widened|narrowed|saving|saves?";
// The word governs the figure: right before it, across at most two small words ("a cut of 9 bps", "falls by
// 23.7%", "the gap is 0.29%"), or right after it and its unit ("9 bps lower", "3 times"). "Were down at 311,253"
// or "the ratio, higher than most, is 0.41%" state a level, not a computation.
const GOVERNS_BEFORE = new RegExp(`\\b(?:${CHANGE})\\b[\\s:,]*(?:(?:of|by|is|was|are|were|a|an|the|about|around|some|roughly|nearly|almost|just|only)\\s+){0,2}[$€£]?$`, "i");
const GOVERNS_AFTER = /^\s*(?:%|bps|basis points?|percentage points?|points?|pp|per ?cent)?\s*(?:more|less|fewer|higher|lower|times|apart|cheaper|dearer|up|down)\b/i;

/** Whether the claim words the number at `offset` (written `length` characters long) as computed (a change, a difference, a ratio, a total). */
export function wordedAsDerived(text: string, offset: number, length = 0): boolean {
  return GOVERNS_BEFORE.test(text.slice(Math.max(0, offset - 60), offset)) || (length > 0 && GOVERNS_AFTER.test(text.slice(offset + length, offset + length + 40)));
}
