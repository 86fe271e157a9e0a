import { termsHeld } from "./questionTerms.ts";

/** A sentence or table row of a read text, scored against the question's terms. */
export interface Passage {
  /** As the text has it, whitespace squashed. */
  text: string;
  /** The PDF page it is on ("[page N]" markers), when the text has pages. */
  page?: number;
  /** A table row's header cells, when the text is a table (CSV, or a Markdown table). */
  header?: string[];
  terms: string[];
  score: number;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
const PAGE = /^\[page (\d+)\]$/;

/** A name (a capitalised word not at the start) or a number: what a finding must state to be worth quoting. */
export const statesFact = (s: string): boolean => /\d/.test(s) || /\s\p{Lu}[\p{L}\p{N}]/u.test(s.replace(/^\W*\S+/, ""));

/**
 * The sentences and table rows of a text: paragraphs split at blank lines,
 * prose split into sentences, each line of a table (Markdown `| … |` rows,
 * or a CSV file's lines) kept whole with its header.
 */
export function passagesOf(text: string, csv = false): Omit<Passage, "terms" | "score">[] {
  const out: Omit<Passage, "terms" | "score">[] = [];
  if (csv) {
    const [head, ...rows] = text.split(/\r?\n/).filter((l) => l.trim() !== "");
    const header = head?.split(",").map((h) => h.trim()) ?? [];
    for (const row of rows) out.push({ text: row.trim(), header });
    return out;
  }
  let page: number | undefined;
  let header: string[] | undefined;
  for (const block of text.split(/\n\s*\n/)) {
    for (const line of block.split("\n")) {
      const marker = PAGE.exec(line.trim());
      if (marker) page = Number(marker[1]);
    }
    const lines = block.split("\n").filter((l) => l.trim() !== "" && !PAGE.test(l.trim()));
    if (lines.length && lines.every((l) => l.trim().startsWith("|"))) {
      header = undefined;
      for (const line of lines) {
        if (/^\|[\s|:-]+\|$/.test(line.trim())) continue;
        const cells = line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
        if (!header) header = cells;
        else out.push({ text: squash(line), page, header });
      }
      continue;
    }
    for (const sentence of squash(lines.join(" ")).split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(])/u)) {
      if (sentence.length >= 12 && sentence.length <= 600) out.push({ text: sentence, page });
    }
  }
  return out;
}

/**
 * The passages worth quoting for a question: holding at least `minTerms` of
 * its terms and a number or a name, best first (more terms held, then a
 * number, then shorter), at most `limit`.
 */
export function pickPassages(text: string, terms: readonly string[], options: { csv?: boolean; limit?: number; minTerms?: number } = {}): Passage[] {
  const minTerms = options.minTerms ?? Math.min(2, terms.length);
  return passagesOf(text, options.csv)
    .map((p) => {
      // A row is matched with its header: "invest" in the header and "1935" in the row both count.
      const held = termsHeld(p.header ? `${p.header.join(" ")} ${p.text}` : p.text, terms);
      return { ...p, terms: held, score: held.length + (/\d/.test(p.text) ? 0.5 : 0) - p.text.length / 10_000 };
    })
    .filter((p) => p.terms.length >= Math.max(1, minTerms) && statesFact(p.text))
    .sort((a, b) => b.score - a.score)
    .slice(0, options.limit ?? 3);
}

/** A table row read with its header: "invest 317.6; value 3078.5; firm General Motors". */
export function rowWithHeader(p: Pick<Passage, "text" | "header">, csv: boolean): string {
  const cells = csv ? p.text.split(",").map((c) => c.trim()) : p.text.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  if (!p.header || p.header.length !== cells.length) return p.text;
  return cells.map((c, i) => (c ? `${p.header![i] || "—"} ${c}` : "")).filter(Boolean).join("; ");
}
