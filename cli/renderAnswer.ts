import type { Answer } from "../actors/index.ts";
import type { RecordedEvent } from "../events/index.ts";

interface HandoffView {
  profile: string;
  findings: { claim: string; evidence: { toolResults: string[]; citations: string[] } }[];
}

/** Collects each Child's profile and committed handoff from a run's events. */
export function handoffsOf(events: readonly RecordedEvent[]): Map<string, HandoffView> {
  const profiles = new Map<string, string>();
  const handoffs = new Map<string, HandoffView>();
  for (const e of events) {
    if (e.type === "executor_admitted" && e.data.role === "child") profiles.set(e.metadata.executorId, e.data.profile?.id ?? "general");
    if (e.type === "handoff_committed") {
      handoffs.set(e.metadata.executorId, {
        profile: profiles.get(e.metadata.executorId) ?? "?",
        findings: (e.data.handoff as unknown as HandoffView).findings ?? [],
      });
    }
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
