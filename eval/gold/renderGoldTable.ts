import { pct } from "../scoreRun.ts";
import type { GoldScore } from "./scoreGoldRun.ts";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const usd = (micros: number, estimated: boolean) => `$${(micros / 1e6).toFixed(4)}${estimated ? "*" : ""}`;
const secs = (ms: number | null) => (ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** A gold suite at a glance: accuracy, mean evidence recall and quote support, and what it spent. */
export interface GoldSummary {
  cases: number;
  correct: number;
  accuracy: number;
  evidenceRecall: number;
  /** Mean over the cases whose answer cites a quote; null when none does. */
  quoteSupport: number | null;
  quotes: number;
  quotesFound: number;
  tokens: number;
  costMicros: number;
  costEstimated: boolean;
  wallTimeMs: number;
}

export function summarizeGold(cases: readonly GoldScore[]): GoldSummary {
  const correct = cases.filter((c) => c.accuracy === 1).length;
  return {
    cases: cases.length,
    correct,
    accuracy: cases.length ? correct / cases.length : 0,
    evidenceRecall: mean(cases.map((c) => c.evidenceRecall)) ?? 0,
    quoteSupport: mean(cases.flatMap((c) => (c.quoteSupport === null ? [] : [c.quoteSupport]))),
    quotes: cases.reduce((n, c) => n + c.quotes, 0),
    quotesFound: cases.reduce((n, c) => n + c.quotesFound, 0),
    tokens: cases.reduce((n, c) => n + c.tokens, 0),
    costMicros: cases.reduce((n, c) => n + c.costMicros, 0),
    costEstimated: cases.some((c) => c.costEstimated),
    wallTimeMs: cases.reduce((n, c) => n + (c.wallTimeMs ?? 0), 0),
  };
}

/**
 * A gold suite's scores as a Markdown table, one row a case and an overall
 * row: pass or fail (and why), whether the answer matched, evidence recall,
 * quote support, tokens, cost (* estimated: scripted tokens) and wall time.
 */
export function renderGoldTable(cases: readonly GoldScore[], summary: GoldSummary = summarizeGold(cases)): string[] {
  return [
    "| case | type | result | accuracy | evidence recall | support (quotes verbatim) | tokens | cost | wall |",
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...cases.map((s) =>
      [
        s.caseId,
        s.answerType,
        s.failures.length ? `FAIL: ${s.failures.join("; ")}` : "pass",
        s.accuracy === 1 ? `correct (${s.gradeDetail})` : "wrong",
        pct(s.evidenceRecall),
        s.quoteSupport === null ? "- (0 quotes)" : `${pct(s.quoteSupport)} (${s.quotesFound}/${s.quotes})`,
        s.tokens.toLocaleString("en-US"),
        usd(s.costMicros, s.costEstimated),
        secs(s.wallTimeMs),
      ].map(cell).join(" | "),
    ).map((row) => `| ${row} |`),
    `| **overall** | ${summary.cases} cases | ${summary.correct} correct | ${pct(summary.accuracy)} | ${pct(summary.evidenceRecall)} | ${summary.quoteSupport === null ? "-" : `${pct(summary.quoteSupport)} (${summary.quotesFound}/${summary.quotes})`} | ${summary.tokens.toLocaleString("en-US")} | ${usd(summary.costMicros, summary.costEstimated)} | ${secs(summary.wallTimeMs)} |`,
  ];
}
