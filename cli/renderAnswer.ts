import type { Answer } from "../actors/index.ts";
import type { RunView } from "../projections/index.ts";

interface HandoffView {
  profile: string;
  findings: { claim: string; evidence: { toolResults: string[]; citations: string[] } }[];
}

/** Each Child's profile and committed handoff, from the run's executor progress projection. */
export function handoffsOf(view: RunView): Map<string, HandoffView> {
  const handoffs = new Map<string, HandoffView>();
  for (const e of view.executors) {
    if (e.role !== "child" || !e.handoff) continue;
    handoffs.set(e.executorId, { profile: e.profile?.id ?? "general", findings: (e.handoff as unknown as HandoffView).findings ?? [] });
  }
  return handoffs;
}

/** The answer as text: each claim with its basis, and each citation traced to the finding and evidence behind it. */
export function renderAnswer(answer: Answer, handoffs: Map<string, HandoffView>): string[] {
  const lines = [answer.summary, ""];
  for (const section of answer.sections) {
    lines.push(`## ${section.heading}`);
    for (const claim of section.claims) {
      lines.push(`- [${claim.basis}] ${claim.text}`);
      for (const cite of claim.citations) {
        const h = handoffs.get(cite.executor);
        const f = h?.findings[cite.finding];
        const refs = f ? [...f.evidence.citations, ...f.evidence.toolResults.map((t) => `tool result ${t}`)].join(", ") : "missing";
        lines.push(`    cites ${h?.profile ?? "?"} (${cite.executor.slice(0, 8)}) finding ${cite.finding}: ${refs}`);
      }
    }
    lines.push("");
  }
  return lines;
}
