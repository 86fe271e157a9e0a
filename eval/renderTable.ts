import type { CaseComparison } from "./runSuite.ts";
import { pct } from "./scoreRun.ts";
import type { CaseScore } from "./scoreRun.ts";

const cell = (s: string) => s.replace(/\|/g, "\\|");
const int = (n: number | null) => (n === null ? "-" : n.toLocaleString("en-US"));
const usd = (micros: number | null, estimated = false) => (micros === null ? "-" : `$${(micros / 1e6).toFixed(4)}${estimated ? "*" : ""}`);
const secs = (ms: number | null) => (ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`);

/**
 * A suite's scores as a Markdown table, one row a case: pass or fail,
 * coverage, accuracy (support, citations, fabricated, numbers, advice), Main's
 * context, cost and waste. Cost marked * is estimated (scripted tokens). The last
 * column says what the case measures: "plumbing" when the script that wrote
 * the answer also gave its expected phrases.
 */
export function renderTable(cases: readonly CaseScore[]): string[] {
  return [
    "| case | variant | result | coverage | support (of observed claims) | citations valid | fabricated | numbers faithful | advice | Main peak / total input | tokens | cost | tokens / supported claim | wasted Child tokens | duplicate fetches | wall | graded |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ...cases.map((s) =>
      [
        s.caseId,
        s.variant,
        s.failures.length ? `FAIL: ${s.failures.join("; ")}` : "pass",
        pct(s.coverage),
        `${pct(s.supportRate)} (${s.supportedClaims}/${s.observedClaims})`,
        `${pct(s.citationValidity)} (${s.citations})`,
        String(s.fabricatedCitations),
        `${pct(s.numberFaithfulness)} (${s.numbersChecked})`,
        String(s.adviceViolations),
        `${int(s.mainPeakInputTokens)} / ${int(s.mainInputTokens)}`,
        int(s.tokens),
        usd(s.costMicros, s.costEstimated),
        int(s.tokensPerSupportedClaim),
        int(s.wastedChildTokens),
        String(s.duplicateFetches),
        secs(s.wallTimeMs),
        s.graded ?? "-",
      ]
        .map(cell)
        .join(" | "),
    ).map((row) => `| ${row} |`),
  ];
}

const times = (r: number | null) => (r === null ? "-" : `×${r}`);
const versus = (delegated: string, single: string, ratio: number | null) => `${delegated} / ${single} (${times(ratio)})`;

/**
 * Each case delegating against a single agent (`--single-agent`): Main's peak
 * and total input tokens, total tokens and cost, as delegating / single agent
 * (single / delegating), and each variant's support rate.
 */
export function renderComparison(comparisons: readonly CaseComparison[]): string[] {
  return [
    "| case | Main peak input: delegating / single agent | Main total input | total tokens | cost | support: delegating / single agent |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...comparisons.map((c) => {
      const { delegated: d, singleAgent: s, ratios: r } = c;
      return [
        c.caseId,
        versus(int(d.mainPeakInputTokens), int(s.mainPeakInputTokens), r.mainPeakInputTokens),
        versus(int(d.mainInputTokens), int(s.mainInputTokens), r.mainInputTokens),
        versus(int(d.totalTokens), int(s.totalTokens), r.totalTokens),
        versus(usd(d.costMicros, d.estimated), usd(s.costMicros, s.estimated), r.costMicros),
        `${pct(c.supportRate.delegated)} / ${pct(c.supportRate.singleAgent)}`,
      ]
        .map(cell)
        .join(" | ");
    }).map((row) => `| ${row} |`),
  ];
}
