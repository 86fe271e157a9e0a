import { CORPUS_DIR } from "../runs/host/scenarioCorpus.ts";
import { measureExtraction } from "./extractionFigures.ts";

/**
 * web_fetch's extraction over every page of the repository's corpus/web/ against
 * Readability's own expected.html: pages, share recovering >= 90% of the
 * expected words, median recovery, and table cells kept.
 */
export async function main(): Promise<void> {
  const dir = CORPUS_DIR;
  const started = performance.now();
  const f = await measureExtraction(dir);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(`pages: ${f.pages} (crashed: ${f.crashed})`);
  console.log(`pages recovering >= 90% of expected.html's words: ${pct(f.shareAtLeast90)}`);
  console.log(`median recovery: ${pct(f.medianRecovery)}`);
  console.log(`table cells kept: ${f.tableCellsKept} of ${f.tableCells} (${pct(f.tableCells ? f.tableCellsKept / f.tableCells : 1)}) on ${f.pagesWithTables} pages with data tables`);
  console.log(`time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const worst = f.perPage.filter((p) => p.recovery < 0.9 || p.error || p.tableCellsKept < p.tableCells);
  for (const p of worst) console.log(`  ${p.name}: recovery ${pct(p.recovery)}, cells ${p.tableCellsKept}/${p.tableCells}${p.error ? `, error: ${p.error}` : ""}`);
}
