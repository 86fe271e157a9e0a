import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { extractReadable } from "../tools/web/extractReadable.ts";
import { cellText, tableToMarkdown } from "../tools/web/tableToMarkdown.ts";
import { readManifest } from "../tools/web/corpusManifest.ts";

export interface PageFigures {
  name: string;
  /** Share of the words of Readability's own expected.html found in our text (as a multiset). */
  recovery: number;
  /** Cells of the page's data tables (raw page), and how many appear in our text. */
  tableCells: number;
  tableCellsKept: number;
  error?: string;
}

export interface ExtractionFigures {
  pages: number;
  crashed: number;
  /** Pages whose recovery is at least 90%. */
  shareAtLeast90: number;
  medianRecovery: number;
  pagesWithTables: number;
  tableCells: number;
  tableCellsKept: number;
  perPage: PageFigures[];
}

/**
 * Extraction over every page of the corpus (web/manifest.jsonl), against the
 * oracle beside each page: expected.html, what Readability itself extracts.
 */
export async function measureExtraction(corpusDir: string): Promise<ExtractionFigures> {
  const manifest = await readManifest(join(corpusDir, "web"));
  const perPage: PageFigures[] = [];
  for (const entry of manifest) {
    const name = entry.file.split("/")[0];
    const html = await readFile(join(corpusDir, "web", entry.file), "utf8");
    const expected = await readFile(join(corpusDir, "web", name, "expected.html"), "utf8").catch(() => null);
    try {
      const page = await extractReadable(html, entry.url);
      const cells = tableCellsOf(html);
      const flat = page.text.replace(/\s+/g, " ");
      perPage.push({
        name,
        recovery: expected === null ? 1 : wordRecovery(textOf(expected), page.text),
        tableCells: cells.length,
        tableCellsKept: cells.filter((c) => flat.includes(c)).length,
      });
    } catch (error) {
      perPage.push({ name, recovery: 0, tableCells: 0, tableCellsKept: 0, error: (error as Error).message });
    }
  }
  const recoveries = perPage.map((p) => p.recovery).sort((a, b) => a - b);
  const withTables = perPage.filter((p) => p.tableCells > 0);
  return {
    pages: perPage.length,
    crashed: perPage.filter((p) => p.error).length,
    shareAtLeast90: perPage.filter((p) => p.recovery >= 0.9).length / perPage.length,
    medianRecovery: recoveries[Math.floor(recoveries.length / 2)],
    pagesWithTables: withTables.length,
    tableCells: withTables.reduce((n, p) => n + p.tableCells, 0),
    tableCellsKept: withTables.reduce((n, p) => n + p.tableCellsKept, 0),
    perPage,
  };
}

function textOf(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return document.body?.textContent ?? "";
}

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Share of the expected text's words (counted with repeats) that our text holds as often. */
export function wordRecovery(expected: string, ours: string): number {
  const want = words(expected);
  if (want.length === 0) return 1;
  const have = new Map<string, number>();
  for (const w of words(ours)) have.set(w, (have.get(w) ?? 0) + 1);
  let found = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      found++;
      have.set(w, n - 1);
    }
  }
  return found / want.length;
}

/** The non-empty cells of the page's data tables, as our Markdown writes them. */
function tableCellsOf(html: string): string[] {
  const { document } = parseHTML(html);
  return [...document.querySelectorAll("table")]
    .filter((t) => tableToMarkdown(t as unknown as Element) !== null)
    .flatMap((t) => [...t.querySelectorAll("td, th")].filter((c) => c.closest("table") === t).map((c) => cellText(c as unknown as Element)))
    .filter((c) => c !== "");
}
