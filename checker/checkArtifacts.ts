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
  /** One line per value found in nothing it was derived from: where, and the value. */
  notes: string[];
}

export const isTableArtifact = (path: string): boolean => /\.(?:csv|json)$/i.test(path);

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

/** A JSON document's leaves (numbers, strings, booleans), each with its path. */
function jsonLeaves(value: unknown, at = "$"): { at: string; value: string | number | boolean }[] {
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => jsonLeaves(v, `${at}[${i}]`));
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => jsonLeaves(v, `${at}.${k}`));
  return [{ at, value: value as string | number | boolean }];
}

/**
 * Whether a value written into an artifact comes from what it was derived from: a number stated there (to
 * the digits the artifact writes), a word or phrase occurring there (normalised, any case); booleans and
 * empty cells stand for themselves.
 */
function valueFound(raw: string, known: readonly StatedNumber[], haystack: string): boolean {
  const value = raw.trim();
  if (value === "" || /^(?:true|false|null|nan|na)$/i.test(value)) return true;
  const numbers = statedNumbers(value);
  if (numbers.length === 1 && numbers[0].text.replace(/[−-]/, "-") === value.replace(/^\+/, "")) return supportedBy(numbers[0], known);
  return haystack.includes(normaliseQuote(value).toLowerCase());
}

/** Each value of each CSV or JSON artifact checked against what it was derived from. */
export function checkArtifacts(artifacts: readonly PublishedArtifact[]): ArtifactCheck[] {
  return artifacts.map((a) => {
    const base = { id: a.id, path: a.path, sha256: a.sha256 };
    if (a.text === null) return { ...base, verdict: "flagged", values: 0, notes: ["its blob could not be read"] };
    // Each text it was derived from, read once: its numbers and its words.
    const sources = a.derivedFrom.map((t) => ({ known: statedNumbers(t), haystack: normaliseQuote(t).toLowerCase() }));
    const found = (value: string, from: readonly { known: StatedNumber[]; haystack: string }[]) => from.some((s) => valueFound(value, s.known, s.haystack));
    const notes: string[] = [];
    let count = 0;
    if (/\.csv$/i.test(a.path)) {
      // A row comes from one text (a variant's row from that variant's compute output): its cells are held
      // against the text that states most of them, so a value moved in from another row is caught.
      const [header, ...rows] = csvRows(a.text);
      rows.forEach((row, r) => {
        count += row.length;
        const best = sources.reduce<(typeof sources)[number] | null>((b, s) => {
          const n = row.filter((cell) => found(cell, [s])).length;
          return !b || n > row.filter((cell) => found(cell, [b])).length ? s : b;
        }, null);
        row.forEach((cell, c) => {
          if (!best || !found(cell, [best])) notes.push(`row ${r + 1}, ${header?.[c] ?? `column ${c + 1}`}: ${cell} is not in the output its row was derived from`);
        });
      });
    } else {
      let leaves: { at: string; value: string | number | boolean }[];
      try {
        leaves = jsonLeaves(JSON.parse(a.text));
      } catch {
        return { ...base, verdict: "flagged", values: 0, notes: ["it is not valid JSON"] };
      }
      count = leaves.length;
      for (const leaf of leaves) if (!found(String(leaf.value), sources)) notes.push(`${leaf.at}: ${leaf.value} is in nothing it was derived from`);
    }
    return { ...base, verdict: notes.length ? "flagged" : "supported", values: count, notes };
  });
}
