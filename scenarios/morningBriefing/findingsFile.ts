/** One finding in the seed's template (seed 001, "Lesson 3: structure the findings"). */
export interface FindingEntry {
  claim: string;
  evidence: string;
  url: string;
  retrievedAt: string;
  confidence: "high" | "medium" | "low";
  /** The page's text the evidence rests on, verbatim (not written to the file: the handoff quotes it). */
  quote?: string;
}

/**
 * A findings file: a heading, then each finding as the seed's template has it
 * (`## Finding`, `Claim:`, `Evidence:`, `Source: <URL> (retrieved <timestamp>)`,
 * `Confidence:`), then what was not used and why.
 */
export function renderFindingsFile(title: string, findings: readonly FindingEntry[], gaps: readonly string[]): string {
  const blocks = findings.map((f) =>
    ["## Finding", `Claim: ${f.claim}`, `Evidence: ${f.evidence}`, `Source: ${f.url} (retrieved ${f.retrievedAt})`, `Confidence: ${f.confidence}`].join("\n"),
  );
  const gapBlock = gaps.length ? [["## Gaps", ...gaps.map((g) => `- ${g}`)].join("\n")] : [];
  return `${[`# Findings: ${title}`, ...blocks, ...gapBlock].join("\n\n")}\n`;
}

const BLOCK = /^## Finding\nClaim: (.+)\nEvidence: (.+)\nSource: (\S+) \(retrieved ([^)]+)\)\nConfidence: (high|medium|low)$/gm;

/** The findings of a file in that template; anything else in it is ignored. */
export function parseFindingsFile(text: string): FindingEntry[] {
  return [...text.matchAll(BLOCK)].map(([, claim, evidence, url, retrievedAt, confidence]) => ({
    claim: claim!,
    evidence: evidence!,
    url: url!,
    retrievedAt: retrievedAt!,
    confidence: confidence as FindingEntry["confidence"],
  }));
}
