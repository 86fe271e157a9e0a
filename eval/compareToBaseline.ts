import { z } from "zod";
import type { CaseScore } from "./scoreRun.ts";

/** Accuracy may drop by at most this much (absolute, 0..1) against the baseline before the gate fails. */
export const ACCURACY_MARGIN = 0.02;

/** The accuracy metrics the gate holds; coverage may rise or fall without failing it (its own floor is the case's). */
export const GATED = ["supportRate", "numberFaithfulness", "citationValidity"] as const;
type Gated = (typeof GATED)[number];

/** A baseline: a stored `ariadne eval --json` result; only each case's id, variant and gated metrics are read. */
export const Baseline = z.object({
  cases: z.array(z.object({ caseId: z.string(), variant: z.string().default("delegating"), supportRate: z.number(), numberFaithfulness: z.number(), citationValidity: z.number() }).loose()),
}).loose();
export type Baseline = z.infer<typeof Baseline>;

export interface Regression {
  caseId: string;
  variant: string;
  metric: Gated | "case";
  baseline: number | null;
  now: number | null;
}

/**
 * The baseline gate: every case of the baseline must still be scored, and none
 * of its accuracy metrics may be lower than the baseline's by more than the margin.
 * Cases the baseline does not know are new and not gated.
 */
export function compareToBaseline(scores: readonly Pick<CaseScore, "caseId" | "variant" | Gated>[], baseline: Baseline, margin = ACCURACY_MARGIN): Regression[] {
  const key = (c: { caseId: string; variant: string }) => `${c.caseId}\n${c.variant}`;
  const now = new Map(scores.map((s) => [key(s), s]));
  return baseline.cases.flatMap((b): Regression[] => {
    const s = now.get(key(b));
    if (!s) return [{ caseId: b.caseId, variant: b.variant, metric: "case", baseline: null, now: null }];
    return GATED.filter((m) => s[m] < b[m] - margin - 1e-9).map((m) => ({ caseId: b.caseId, variant: b.variant, metric: m, baseline: b[m], now: s[m] }));
  });
}

export const describeRegression = (r: Regression): string =>
  r.metric === "case"
    ? `${r.caseId} (${r.variant}): in the baseline but not scored now`
    : `${r.caseId} (${r.variant}): ${r.metric} ${r.now!.toFixed(3)} < baseline ${r.baseline!.toFixed(3)} - ${ACCURACY_MARGIN}`;
