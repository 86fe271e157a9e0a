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
  return childrenOf(value, at)?.flatMap(([path, v]) => jsonLeaves(v, path)) ?? [{ at, value: value as string | number | boolean }];
}

/** A JSON array's or object's children, each with its path ("common[0]", "a.b"); null for anything else. */
function childrenOf(value: unknown, at: string): [string, unknown][] | null {
  if (Array.isArray(value)) return value.map((v, i) => [`${at}[${i}]`, v]);
  if (value !== null && typeof value === "object") return Object.entries(value as Record<string, unknown>).map(([k, v]) => [at ? `${at}.${k}` : k, v]);
  return null;
}

/** A JSON object (not an array, not null): a record, when it is an item of an array. */
const isRecord = (x: unknown): x is object => x !== null && typeof x === "object" && !Array.isArray(x);

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

/** The JSON records a text holds (the whole text, or one a line, as a compute run prints them; each object in an array, at any depth), flattened. */
function jsonRecords(text: string): Map<string, string>[] {
  const docs = [text, ...text.split(/\r?\n/)].flatMap((t) => {
    if (!/^\s*[[{]/.test(t)) return [];
    try {
      return [JSON.parse(t) as unknown];
    } catch {
      return [];
    }
  });
  const records = docs.flatMap((d) => (d !== null && typeof d === "object" ? [d, ...itemsWithin(d)] : []));
  return records.map((r) => new Map(jsonLeaves(r, "").map((l) => [l.at, String(l.value)])));
}

/** Every object that is an item of an array, at any depth: each a record of its own (a table's row, printed whole). */
function itemsWithin(value: unknown): object[] {
  const items = Array.isArray(value) ? value.filter(isRecord) : [];
  return [...items, ...(childrenOf(value, "") ?? []).flatMap(([, v]) => itemsWithin(v))];
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
 * A row of a table artifact (a CSV's line below its header, or one object of a JSON array of objects): its values,
 * each under its key (a CSV's column, a path inside the object) and named as a note names it.
 */
type Row = { key: string | null; label: string; value: string }[];

/** How a note names a value at `path` of a JSON document ("$.se", "$[0]"). */
const jsonPath = (path: string) => (path.startsWith("[") || path === "" ? "$" : "$.") + path;

/**
 * A JSON document split into its tables (each array whose items are all objects: an item is a row, its leaves its
 * cells under their paths inside it) and its other leaves, held one by one.
 */
function jsonTables(value: unknown, at = ""): { tables: Row[][]; leaves: { at: string; value: string | number | boolean }[] } {
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
    const rows = value.map((item, i) => jsonLeaves(item).map((l) => ({ key: l.at, label: `${jsonPath(`${at}[${i}]`)}.${l.at}`, value: String(l.value) })));
    return { tables: [rows], leaves: [] };
  }
  const parts = childrenOf(value, at)?.map(([path, v]) => jsonTables(v, path));
  if (!parts) return { tables: [], leaves: value === null ? [] : [{ at, value: value as string | number | boolean }] };
  return { tables: parts.flatMap((p) => p.tables), leaves: parts.flatMap((p) => p.leaves) };
}

/**
 * A table's rows held against the records its output printed: each row against the one record that gives most of
 * its cells, each cell under its key where that record has it, so a value moved in from another row, two cells
 * swapped or a label cut short are caught; then every record of its columns must be a row of it (a table that drops
 * one has no wrong cell), unless the answer says the file omits rows.
 */
function checkRows(rows: readonly Row[], columns: readonly (string | null)[], sources: readonly Source[], excused: boolean) {
  const notes: string[] = [];
  const holds = (row: Row, s: Source) => row.filter((c) => valueFound(c.value, c.key, s)).length;
  for (const row of rows) {
    const best = sources.reduce<Source | null>((b, s) => (!b || holds(row, s) > holds(row, b) ? s : b), null);
    for (const c of row) if (!best || !valueFound(c.value, c.key, best)) notes.push(`${c.label}: ${c.value} is not what the output its row was derived from gives`);
  }
  const records = recordsOfTable(columns, sources);
  const missing = records.filter(({ source }) => !rows.some((row) => holds(row, source) === row.length)).map((x) => x.words);
  if (missing.length && excused) return { notes, omittedRows: missing };
  for (const words of missing) notes.push(`no row holds the output's record ${words} (${missing.length} of ${records.length} records missing)`);
  return { notes };
}

/** A CSV's lines below its header as rows, each cell under its column. */
function csvTable(text: string): { columns: (string | null)[]; rows: Row[] } {
  const [header = [], ...lines] = csvRows(text);
  const columns = header.map((c) => c.trim() || null);
  const rows = lines.map((line, r) => line.map((value, c) => ({ key: columns[c] ?? null, label: `row ${r + 1}, ${header[c] ?? `column ${c + 1}`}`, value })));
  return { columns, rows };
}

/** The keys every row of a JSON table gives: its columns. */
const commonKeys = (rows: readonly Row[]): string[] =>
  rows.map((r) => r.map((c) => c.key!)).reduce((common, keys) => common.filter((k) => keys.includes(k)));

/**
 * Each value of each CSV or JSON artifact checked against what it was derived from; each CSV, and each array of
 * objects in a JSON artifact, as a table whose rows are held against the records its output printed (`checkRows`):
 * `answer` (the answer's text) may say a table omits rows, which are then listed, not flagged.
 */
export function checkArtifacts(artifacts: readonly PublishedArtifact[], answer = ""): ArtifactCheck[] {
  return artifacts.map((a) => {
    const base = { id: a.id, path: a.path, sha256: a.sha256 };
    if (a.text === null) return { ...base, verdict: "flagged", values: 0, notes: ["its blob could not be read"] };
    // Each text it was derived from, read once: its numbers, its words and its keyed values.
    const sources = a.derivedFrom.flatMap(readSources);
    const excused = saysItOmitsRows(answer, a.path);
    const notes: string[] = [];
    const omittedRows: string[] = [];
    let count = 0;
    const tables: { columns: readonly (string | null)[]; rows: Row[] }[] = [];
    if (/\.csv$/i.test(a.path)) tables.push(csvTable(a.text));
    else {
      let document: unknown;
      try {
        document = JSON.parse(a.text);
      } catch {
        return { ...base, verdict: "flagged", values: 0, notes: ["it is not valid JSON"] };
      }
      const split = jsonTables(document);
      for (const rows of split.tables) tables.push({ columns: commonKeys(rows), rows });
      count += split.leaves.length;
      for (const leaf of split.leaves) {
        // Where a record it was derived from gives the leaf's key a value, one such record must give this one.
        const value = String(leaf.value);
        const keyedBy = sources.filter((s) => s.keyed.has(leaf.at));
        const ok = keyedBy.length ? keyedBy.some((s) => valueFound(value, leaf.at, s)) : sources.some((s) => valueFound(value, null, s));
        if (!ok) notes.push(`${jsonPath(leaf.at)}: ${value} is ${keyedBy.length ? "not what it was derived from gives" : "in nothing it was derived from"}`);
      }
    }
    for (const t of tables) {
      count += t.rows.reduce((n, r) => n + r.length, 0);
      const checked = checkRows(t.rows, t.columns, sources, excused);
      notes.push(...checked.notes);
      omittedRows.push(...(checked.omittedRows ?? []));
    }
    return { ...base, verdict: notes.length ? "flagged" : "supported", values: count, notes, ...(omittedRows.length ? { omittedRows } : {}) };
  });
}
