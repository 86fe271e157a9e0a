import type { RecordedEvent } from "../../events/index.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import { reportOfEvents } from "../../projections/runReportView.ts";
import type { JudgedAnswer } from "./judgeAnswer.ts";

/** What the judge reads of a run: its answer's claims with their basis, the findings and quotes they cite, and its effort. */
export function judgedAnswerOf(question: string, expected: string[], runId: string, events: readonly RecordedEvent[]): JudgedAnswer {
  const claims = claimsOfEvents(runId, events);
  const report = reportOfEvents(runId, events);
  const answer = claims.claims.map((c) => `- [${c.id}, ${c.basis}] (${c.section}) ${c.text}${c.findings.length ? ` [cites ${c.findings.map((f) => `${f.executorId}#${f.finding}`).join(", ")}]` : ""}`);
  const evidence = claims.claims.flatMap((c) =>
    c.findings.map((f) => `${f.executorId}#${f.finding}: ${f.claim ?? "(no such finding)"}${f.quotes.map((q) => `\n  quote: "${q.text}"${q.source?.kind === "source" ? ` (${q.source.url})` : ""}`).join("")}`),
  );
  return {
    question,
    answer: answer.length ? answer.join("\n") : "(no answer)",
    evidence: [...new Set(evidence)].join("\n"),
    expected,
    effort: `${report.run.turns} turns, ${report.run.toolCalls} tool calls, ${report.executors.length} executors, ${report.run.fetches.duplicatesAvoided} duplicate fetches`,
  };
}
