import type { Answer } from "../actors/index.ts";
import { type HandoffView, type RunView } from "./runView.ts";

/** Each Child's committed handoff, by executor id. */
export function handoffsOf(view: RunView): Map<string, HandoffView> {
  return new Map(view.handoffs.map((h) => [h.executorId, h]));
}

/**
 * The answer as text: each claim with its basis, and each citation traced to the finding and evidence behind
 * it. A single agent's claims cite Main's own findings: named as Main's (`mainExecutorId`), not by a profile.
 */
export function renderAnswer(answer: Answer, handoffs: Map<string, HandoffView>, mainExecutorId: string | null = null): string[] {
  const lines = [answer.summary, ""];
  for (const section of answer.sections) {
    lines.push(`## ${section.heading}`);
    for (const claim of section.claims) {
      lines.push(`- [${claim.basis}] ${claim.text}`);
      for (const cite of claim.citations) {
        const h = handoffs.get(cite.executor);
        const f = h?.findings[cite.finding];
        const refs = f ? [...f.evidence.citations, ...f.evidence.toolResults.map((t) => `tool result ${t}`)].join(", ") : "missing";
        lines.push(`    cites ${cite.executor === mainExecutorId ? "main" : h?.profile ?? "?"} (${cite.executor}) finding ${cite.finding}: ${refs}`);
      }
    }
    lines.push("");
  }
  return lines;
}
