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

/** The subject terms of a text: lowercased words of 3+ letters, not common words. */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const [w] of text.matchAll(/\p{L}[\p{L}\p{N}]*/gu)) {
    const word = w.toLowerCase();
    if (word.length >= 3 && !COMMON.has(word)) out.add(word);
  }
  return out;
}

/** The units of a text: its lines, and its sentences with single line breaks joined (a PDF wraps its lines). */
export function unitsOf(text: string): string[] {
  const lines = text.split(/\n/).map((l) => l.trim()).filter(Boolean);
  const sentences = text
    .split(/\n\s*\n|(?<=[.!?])\s+(?=[A-Z(“"])/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  return [...new Set([...lines, ...sentences])];
}

export interface UnitIndex {
  units: { terms: Set<string>; numbers: StatedNumber[] }[];
}

/** The texts' units, each with its terms and numbers, built once a check. */
export function indexUnits(texts: readonly string[]): UnitIndex {
  return { units: texts.flatMap(unitsOf).map((u) => ({ terms: termsOf(u), numbers: statedNumbers(u) })) };
}

const shares = (a: Set<string>, b: Set<string>): boolean => {
  for (const t of a) if (b.has(t)) return true;
  return false;
};

/** The subject terms of a claim for the number at `offset`: its clause's terms and its lead's. */
export function subjectAround(claim: string, offset: number): Set<string> {
  const start = Math.max(claim.lastIndexOf(";", offset), claim.lastIndexOf(". ", offset)) + 1;
  const ends = [claim.indexOf(";", offset), claim.indexOf(". ", offset)].filter((i) => i >= 0);
  const clause = claim.slice(start, ends.length ? Math.min(...ends) : claim.length);
  const colon = claim.indexOf(":");
  const lead = colon > 0 && colon < offset ? claim.slice(0, colon) : "";
  return new Set([...termsOf(clause), ...termsOf(lead)]);
}

/** Whether some unit that states the number also holds the claim's subject. */
export function standsBySubject(n: StatedNumber, subject: Set<string>, index: UnitIndex): boolean {
  return index.units.some((u) => supportedBy(n, u.numbers) && shares(subject, u.terms));
}

/** Whether any unit states the number (anywhere in the cited texts). */
export function statedAnywhere(n: StatedNumber, index: UnitIndex): boolean {
  return index.units.some((u) => supportedBy(n, u.numbers));
}
