import type { CaseScore } from "./scoreRun.ts";
import { pct } from "./scoreRun.ts";

/** A suite at a glance: the accuracy metrics' means over its cases, the counts that must be zero, and what it spent. */
export interface SuiteSummary {
  cases: number;
  coverage: number;
  supportRate: number;
  citationValidity: number;
  numberFaithfulness: number;
  fabricatedCitations: number;
  adviceViolations: number;
  tokens: number;
  costMicros: number;
  wastedChildTokens: number;
  duplicateFetches: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 1);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function summarize(cases: readonly CaseScore[]): SuiteSummary {
  return {
    cases: cases.length,
    coverage: mean(cases.map((c) => c.coverage)),
    supportRate: mean(cases.map((c) => c.supportRate)),
    citationValidity: mean(cases.map((c) => c.citationValidity)),
    numberFaithfulness: mean(cases.map((c) => c.numberFaithfulness)),
    fabricatedCitations: sum(cases.map((c) => c.fabricatedCitations)),
    adviceViolations: sum(cases.map((c) => c.adviceViolations)),
    tokens: sum(cases.map((c) => c.tokens)),
    costMicros: sum(cases.map((c) => c.costMicros)),
    wastedChildTokens: sum(cases.map((c) => c.wastedChildTokens)),
    duplicateFetches: sum(cases.map((c) => c.duplicateFetches)),
  };
}

export const summaryLine = (s: SuiteSummary): string =>
  `${s.cases} cases · mean coverage ${pct(s.coverage)} · mean support ${pct(s.supportRate)} · citations valid ${pct(s.citationValidity)} · ` +
  `${s.fabricatedCitations} fabricated · numbers faithful ${pct(s.numberFaithfulness)} · ${s.adviceViolations} advice · ` +
  `${s.tokens.toLocaleString("en-US")} tokens · $${(s.costMicros / 1e6).toFixed(4)} · ${s.wastedChildTokens.toLocaleString("en-US")} wasted Child tokens · ${s.duplicateFetches} duplicate fetches`;
