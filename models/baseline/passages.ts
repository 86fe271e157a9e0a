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
    // A list (every line a "-", "+", "*" or "•" item) is read item by item, as a table is row by row.
    if (lines.length > 1 && lines.every((l) => /^\s*[-+*•]\s/.test(l))) {
      for (const line of lines) if (line.trim().length >= 8) out.push({ text: squash(line), page });
      continue;
    }
    for (const sentence of squash(lines.join(" ")).split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“(])/u)) {
      if (sentence.length >= 12 && sentence.length <= 600) out.push({ text: sentence, page });
    }
  }
  return out;
}

/** A passage's words for matching: without URLs and Markdown link targets, so a link's address matches nothing. */
const matchable = (s: string) => s.replace(/\]\([^)]*\)/g, "]").replace(/https?:\/\/\S+/g, " ");

/** Navigation, not content: a heading, or a line that is mostly a link. */
const isNavigation = (s: string) => /^#/.test(s) || s.replace(/\[[^\]]*\]\([^)]*\)/g, "").replace(/[-*+•|\s]/g, "").length < 8;

/**
 * The passages worth quoting for a question: holding at least `minTerms` of
 * its terms and a number or a name, best first, at most `limit`. A passage
 * scores the weights of the terms it holds, a term weighing more the fewer of
 * the text's passages hold it (a page about the Xbox says "Xbox" everywhere;
 * "costs" once), plus a bonus for a figure when the question asks for one.
 */
export function pickPassages(text: string, terms: readonly string[], options: { csv?: boolean; limit?: number; minTerms?: number; wantsNumber?: boolean } = {}): Passage[] {
  const minTerms = options.minTerms ?? Math.min(2, terms.length);
  const all = passagesOf(text, options.csv)
    .filter((p) => !isNavigation(p.text))
    // A row is matched with its header: "invest" in the header and "1935" in the row both count.
    .map((p) => ({ ...p, terms: termsHeld(matchable(p.header ? `${p.header.join(" ")} ${p.text}` : p.text), terms) }));
  const df = new Map(terms.map((t) => [t, all.filter((p) => p.terms.includes(t)).length]));
  const weight = (t: string) => Math.log(1 + all.length / (1 + df.get(t)!));
  const scored = all
    .filter((p) => p.terms.length >= Math.max(1, minTerms) && statesFact(p.text))
    .map((p) => ({ ...p, score: p.terms.reduce((n, t) => n + weight(t), 0) + (/\d/.test(matchable(p.text)) ? (options.wantsNumber ? 1.5 : 0.25) : 0) - p.text.length / 10_000 }))
    .sort((a, b) => b.score - a.score);
  // Rows of a table are alike: only those holding as many of the question's terms as the best row are worth quoting.
  const best = scored.find((p) => p.header)?.terms.length ?? 0;
  return scored.filter((p) => !p.header || p.terms.length >= best).slice(0, options.limit ?? 3);
}

/** Whether a question asks for a figure: how many, how much, what year, what percentage. */
export const asksForNumber = (question: string): boolean => /\b(how (many|much|old|long|far|high)|what (year|percentage|share|number|price)|in (what|which) year|when)\b/i.test(question);

/** A table row read with its header: "invest 317.6; value 3078.5; firm General Motors". */
export function rowWithHeader(p: Pick<Passage, "text" | "header">, csv: boolean): string {
  const cells = csv ? p.text.split(",").map((c) => c.trim()) : p.text.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  if (!p.header || p.header.length !== cells.length) return p.text;
  return cells.map((c, i) => (c ? `${p.header![i] || "—"} ${c}` : "")).filter(Boolean).join("; ");
}
