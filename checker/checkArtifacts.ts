import { normaliseQuote } from "../handoff/normaliseQuote.ts";
import { statedNumbers, supportedBy, type StatedNumber } from "./numbers.ts";

/** A CSV or JSON file the run published, with the texts it was derived from. */
export interface PublishedArtifact {
  id: string;
  path: string;
  sha256: string;
  /** Its stored text; null when the blob could not be read. */
  text: string | null;
  /** What it was made from: the compute output of the call that wrote it, or the findings' texts its author held. */
  derivedFrom: readonly string[];
}

export interface ArtifactCheck {
  id: string;
  path: string;
  sha256: string;
  verdict: "supported" | "flagged";
  /** Values checked (cells of a CSV below its header, leaves of a JSON document). */
  values: number;
  /** One line per value found in nothing it was derived from: where, and the value; a record of its output no row holds. */
  notes: string[];
  /** Records of its output no row holds that the answer says the table omits (listed, not flagged). */
  omittedRows?: string[];
}

export const isTableArtifact = (path: string): boolean => /\.(?:csv|json)$/i.test(path);

/** Whether the answer says a table omits rows: a sentence naming its file with "omits", "left out", "excluded"… */
const OMISSION = /\b(?:omit(?:s|ted)?|leaves? out|left out|not included|excluded|exclude[sd]?|drop(?:s|ped)?|not tabulated)\b/i;
function saysItOmitsRows(answer: string, path: string): boolean {
  const file = path.split("/").at(-1)!.toLowerCase();
  return answer.split(/(?<=[.!?])\s+|\n+/).some((sentence) => sentence.toLowerCase().includes(file) && OMISSION.test(sentence));
}

/**
 * The records of a CSV's output (printed JSON records giving a value for every column of its header), each with
 * its columns' values in words, once each: the rows the table must hold.
 */
function recordsOfTable(header: readonly (string | null)[], sources: readonly Source[]): { source: Source; words: string }[] {
  const columns = header.filter((c): c is string => c !== null);
  const out = new Map<string, Source>();
  for (const s of sources) {
    if (columns.length < 2 || !columns.every((c) => s.keyed.has(c))) continue;
    const words = columns.map((c) => `${c} ${s.keyed.get(c)}`).join(", ");
    if (!out.has(words)) out.set(words, s);
  }
  return [...out].map(([words, source]) => ({ source, words }));
}

/** A CSV's rows of cells: quoted cells may hold commas and doubled quotes. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const cells: string[] = [];
    for (const m of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)) cells.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]);
    rows.push(cells);
  }
  return rows;
}

/** A JSON document's leaves (numbers, strings, booleans), each with its path ("se_value", "common[0]", "a.b"). */
function jsonLeaves(value: unknown, at = ""): { at: string; value: string | number | boolean }[] {
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => jsonLeaves(v, `${at}[${i}]`));
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => jsonLeaves(v, at ? `${at}.${k}` : k));
  return [{ at, value: value as string | number | boolean }];
}

/**
 * A record of a derived-from text: the text's numbers and words, and the values one JSON record it holds gives
 * by key (a printed JSON line); a text without JSON is one record with no keys.
 */
interface Source {
  known: StatedNumber[];
  haystack: string;
  /** Key path ("se_value", "common[0]") -> the value the record gives it. */
  keyed: Map<string, string>;
}

/** The JSON records a text holds (the whole text, or one a line, as a compute run prints them; an array's objects each), flattened. */
function jsonRecords(text: string): Map<string, string>[] {
  const docs = [text, ...text.split(/\r?\n/)].flatMap((t) => {
    if (!/^\s*[[{]/.test(t)) return [];
    try {
      return [JSON.parse(t) as unknown];
    } catch {
      return [];
    }
  });
  const records = docs.flatMap((d) => (Array.isArray(d) ? [d, ...d.filter((x) => x !== null && typeof x === "object")] : typeof d === "object" && d !== null ? [d] : []));
  return records.map((r) => new Map(jsonLeaves(r, "").map((l) => [l.at, String(l.value)])));
}

/** A derived-from text read once, as one source a JSON record it holds (or one source with no keys). */
function readSources(t: string): Source[] {
  const known = statedNumbers(t);
  const haystack = normaliseQuote(t).toLowerCase();
  const records = jsonRecords(t);
  return (records.length ? records : [new Map<string, string>()]).map((keyed) => ({ known, haystack, keyed }));
}

/** Whether `word` stands in `haystack` as a whole (a label "ols_cluster" is not "ols_cluster_firm_year"). */
const standsAsWhole = (haystack: string, word: string): boolean => {
  for (let at = haystack.indexOf(word); at >= 0; at = haystack.indexOf(word, at + 1)) {
    const before = haystack[at - 1] ?? " ";
    const after = haystack[at + word.length] ?? " ";
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return true;
  }
  return false;
};

/** Whether two written values are the same: a number to the digits the artifact writes, anything else as normalised text. */
function sameValue(written: string, given: string): boolean {
  const numbers = statedNumbers(written);
  if (numbers.length === 1 && numbers[0].text.replace(/[−-]/, "-") === written.replace(/^\+/, "")) return supportedBy(numbers[0], statedNumbers(given));
  return normaliseQuote(written).toLowerCase() === normaliseQuote(given).toLowerCase();
}

/**
 * Whether a value written into an artifact under `key` (a CSV column, a JSON leaf's path) comes from a text it
 * was derived from: where that text gives the key a value (a printed JSON line), it must be that value, so two
 * cells swapped within a row or a flipped boolean are caught; otherwise a number stated there (to the digits the
 * artifact writes) or a word or phrase standing there whole (normalised, any case). Empty cells stand for themselves.
 */
function valueFound(raw: string, key: string | null, source: Source): boolean {
  const value = raw.trim();
  if (value === "") return true;
  const given = key === null ? undefined : source.keyed.get(key);
  if (given !== undefined) return sameValue(value, given);
  if (/^(?:true|false|null|nan|na)$/i.test(value)) return true;
  const numbers = statedNumbers(value);
  if (numbers.length === 1 && numbers[0].text.replace(/[−-]/, "-") === value.replace(/^\+/, "")) return supportedBy(numbers[0], source.known);
  return standsAsWhole(source.haystack, normaliseQuote(value).toLowerCase());
}

/**
 * Each value of each CSV or JSON artifact checked against what it was derived from, and each CSV for the rows
 * its output has: `answer` (the answer's text) may say a table omits rows, which are then listed, not flagged.
 */
export function checkArtifacts(artifacts: readonly PublishedArtifact[], answer = ""): ArtifactCheck[] {
  return artifacts.map((a) => {
    const base = { id: a.id, path: a.path, sha256: a.sha256 };
    if (a.text === null) return { ...base, verdict: "flagged", values: 0, notes: ["its blob could not be read"] };
    // Each text it was derived from, read once: its numbers, its words and its keyed values.
    const sources = a.derivedFrom.flatMap(readSources);
    const notes: string[] = [];
    let omittedRows: string[] | undefined;
    let count = 0;
    if (/\.csv$/i.test(a.path)) {
      // A row comes from one record (a variant's row from that variant's printed JSON line): its cells are held
      // against the record that gives most of them, each under its column's key where the record has that key,
      // so a value moved in from another row, two cells swapped or a label cut short are caught.
      const [header, ...rows] = csvRows(a.text);
      const keyOf = (c: number) => header?.[c]?.trim() || null;
      const holds = (row: string[], s: Source) => row.filter((cell, c) => valueFound(cell, keyOf(c), s)).length;
      rows.forEach((row, r) => {
        count += row.length;
        const best = sources.reduce<Source | null>((b, s) => (!b || holds(row, s) > holds(row, b) ? s : b), null);
        row.forEach((cell, c) => {
          if (!best || !valueFound(cell, keyOf(c), best)) notes.push(`row ${r + 1}, ${header?.[c] ?? `column ${c + 1}`}: ${cell} is not what the output its row was derived from gives`);
        });
      });
      // Every record of its columns the output printed is a row of it (a table that drops one has no wrong cell).
      const records = recordsOfTable((header ?? []).map((_, c) => keyOf(c)), sources);
      const missing = records.filter(({ source }) => !rows.some((row) => holds(row, source) === row.length)).map((x) => x.words);
      if (missing.length && saysItOmitsRows(answer, a.path)) omittedRows = missing;
      else for (const words of missing) notes.push(`no row holds the output's record ${words} (${missing.length} of ${records.length} records missing)`);
    } else {
      let leaves: { at: string; value: string | number | boolean }[];
      try {
        leaves = jsonLeaves(JSON.parse(a.text));
      } catch {
        return { ...base, verdict: "flagged", values: 0, notes: ["it is not valid JSON"] };
      }
      count = leaves.length;
      for (const leaf of leaves) {
        // Where a record it was derived from gives the leaf's key a value, one such record must give this one.
        const value = String(leaf.value);
        const keyedBy = sources.filter((s) => s.keyed.has(leaf.at));
        const ok = keyedBy.length ? keyedBy.some((s) => valueFound(value, leaf.at, s)) : sources.some((s) => valueFound(value, null, s));
        if (!ok) notes.push(`${leaf.at.startsWith("[") ? "$" : "$."}${leaf.at}: ${value} is ${keyedBy.length ? "not what it was derived from gives" : "in nothing it was derived from"}`);
      }
    }
    return { ...base, verdict: notes.length ? "flagged" : "supported", values: count, notes, ...(omittedRows && { omittedRows }) };
  });
}
