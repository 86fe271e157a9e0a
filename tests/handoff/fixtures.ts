import type { HandoffFacts } from "../../handoff/index.ts";

export const SHA = "3f1c0e5a9b7d2c4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";
export const FEE_MARKER = "[[corpus:adiv-fee-announcement#announcement]]";
export const NOTE_MARKER = "[[corpus:adiv-prospectus#p13]]";

/** What the runtime recorded for one Child in the ETF fee example. */
export const facts: HandoffFacts = {
  toolResultIds: new Set(["toolu_search", "toolu_read", "toolu_quote"]),
  citationsSeen: new Set([FEE_MARKER, NOTE_MARKER]),
  artifacts: new Map([["art-overlap", { path: "work/child-1/overlap.csv", sha256: SHA }]]),
};

/** A handoff that is entirely valid against `facts`. */
export function validCandidate() {
  return {
    summary: "ADIV's ongoing charge falls from 0.38% to 0.29% on 2026-10-01; transaction costs (0.06%) are outside it.",
    findings: [
      {
        claim: "The ongoing charge of ADIV (USD Distributing) is reduced from 0.38% to 0.29% per year, effective 2026-10-01.",
        evidence: { toolResults: ["toolu_search", "toolu_quote"], citations: [FEE_MARKER] },
        confidence: "high",
      },
      {
        claim: "Portfolio transaction costs, estimated at 0.06% a year, are not included in the ongoing charge.",
        evidence: { toolResults: ["toolu_read"], citations: [NOTE_MARKER] },
        confidence: "medium",
      },
    ],
    measurementBasis: {
      sources: ["adiv-fee-announcement", "adiv-prospectus"],
      dates: ["2026-08-14 announcement", "2026-10-01 effective", "2026-02-01 prospectus"],
      units: ["percent of average net assets per year"],
      scope: "USD Distributing share class; recurring fees only",
    },
    artifacts: [{ id: "art-overlap", path: "work/child-1/overlap.csv", sha256: SHA }],
    gaps: ["Broker commissions and spreads were not quantified."],
    executionState: "completed",
    confidence: "high",
    caveats: [],
  };
}
