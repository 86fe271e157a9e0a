import { z } from "zod";
import type { CaseScore } from "./scoreRun.ts";

/** A rate may drop by at most this much (absolute, 0..1), and a count by at most this share, against the baseline before the gate fails. */
export const ACCURACY_MARGIN = 0.02;

/**
 * What the gate holds: the accuracy rates, coverage (counted from supported
 * claims only, so an answer that says it collected nothing covers nothing),
 * and the number of supported claims (so dropping claims is a regression even
 * when what is left is all supported). A rate of 0/0 reads as 1, which is why
 * the count is gated too: a run with no observed claim at all falls from the
 * baseline's count to 0. A gold case (eval/gold/) is also held to its accuracy:
 * a case answered right in the baseline and wrong now is a regression.
 */
export const GATED = ["supportRate", "numberFaithfulness", "citationValidity", "coverage", "supportedClaims", "accuracy"] as const;
type Gated = (typeof GATED)[number];
const COUNTS: ReadonlySet<Gated> = new Set(["supportedClaims"]);

/** A baseline: a stored `ariadne eval --json` result; only each case's id, variant and gated metrics are read (coverage and supportedClaims gated when the baseline has them). */
export const Baseline = z.object({
  cases: z.array(
    z.object({
      caseId: z.string(),
      variant: z.string().default("delegating"),
      supportRate: z.number(),
      numberFaithfulness: z.number(),
      citationValidity: z.number(),
      coverage: z.number().optional(),
      supportedClaims: z.number().optional(),
      accuracy: z.number().optional(),
    }).loose(),
  ),
}).loose();
export type Baseline = z.infer<typeof Baseline>;

export interface Regression {
  caseId: string;
  variant: string;
  metric: Gated | "case";
  baseline: number | null;
  now: number | null;
}

/** The lowest value a metric may fall to: a rate by the margin (absolute), a count by the margin's share of it. */
const floorOf = (metric: Gated, baseline: number, margin: number) => (COUNTS.has(metric) ? baseline * (1 - margin) : baseline - margin);

/**
 * The baseline gate: every case of the baseline must still be scored, and none
 * of its gated metrics may be lower than the baseline's by more than the margin.
 * Cases the baseline does not know are new and not gated.
 */
export function compareToBaseline(scores: readonly (Pick<CaseScore, "caseId" | "variant"> & Partial<Record<Gated, number>>)[], baseline: Baseline, margin = ACCURACY_MARGIN): Regression[] {
  const key = (c: { caseId: string; variant: string }) => `${c.caseId}\n${c.variant}`;
  const now = new Map(scores.map((s) => [key(s), s]));
  return baseline.cases.flatMap((b): Regression[] => {
    const s = now.get(key(b));
    if (!s) return [{ caseId: b.caseId, variant: b.variant, metric: "case", baseline: null, now: null }];
    // A metric the baseline or the score does not carry (coverage in an old baseline, accuracy outside gold suites) is not gated.
    return GATED.filter((m) => b[m] !== undefined && s[m] !== undefined && s[m] < floorOf(m, b[m]!, margin) - 1e-9).map((m) => ({ caseId: b.caseId, variant: b.variant, metric: m, baseline: b[m]!, now: s[m]! }));
  });
}

export const describeRegression = (r: Regression): string =>
  r.metric === "case"
    ? `${r.caseId} (${r.variant}): in the baseline but not scored now`
    : COUNTS.has(r.metric)
      ? `${r.caseId} (${r.variant}): ${r.metric} ${r.now} < baseline ${r.baseline} less ${ACCURACY_MARGIN * 100}%`
      : `${r.caseId} (${r.variant}): ${r.metric} ${r.now!.toFixed(3)} < baseline ${r.baseline!.toFixed(3)} - ${ACCURACY_MARGIN}`;
