import { SUMMARY_MAX, type Handoff } from "./handoffSchema.ts";

const clip = (s: string) => (s.length > SUMMARY_MAX ? `${s.slice(0, SUMMARY_MAX - 1)}…` : s);

/**
 * What the runtime records when a Child's handoff could not be repaired in the
 * attempts allowed: whatever valid work was salvaged, marked partial and low
 * confidence, with the reason as a gap. Valid findings survive a failed repair.
 * unknown_effects is never downgraded: an effect that may have happened must not
 * look like work that was simply not done.
 */
export function partialHandoff(salvage: Handoff | null, reason: string): Handoff {
  const hasWork = !!salvage && (salvage.findings.length > 0 || salvage.artifacts.length > 0);
  const state = salvage?.executionState === "unknown_effects" ? "unknown_effects" : hasWork ? "partial" : "not_executed";
  return {
    summary: clip(salvage?.summary.trim() ? salvage.summary : `No valid handoff was produced: ${reason}.`),
    findings: salvage?.findings ?? [],
    measurementBasis: salvage?.measurementBasis ?? { sources: [], dates: [], units: [], scope: "not stated" },
    artifacts: salvage?.artifacts ?? [],
    gaps: [...(salvage?.gaps ?? []), reason],
    executionState: state,
    confidence: "low",
    caveats: salvage?.caveats ?? [],
  };
}
