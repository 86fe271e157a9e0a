import type { RecordedEvent } from "../../events/index.ts";
import { findQuote } from "../../handoff/normaliseQuote.ts";
import { normalizeUrl } from "../../tools/web/normalizeUrl.ts";
import { type CaseScore, checkedAnswer, scoreRun } from "../scoreRun.ts";
import type { GoldCase } from "./goldCase.ts";
import { gradeAnswer } from "./gradeAnswer.ts";

/** A gold case's score: the run's own (support, citations, numbers, tokens, cost, wall) and the grade against the gold answer. */
export interface GoldScore extends CaseScore {
  answerType: GoldCase["answer_type"];
  /** 1 when the answer matches the gold answer, else 0 (a rate, so the baseline gate reads it like the others). */
  accuracy: number;
  /** What the grader compared (the number it found, or the items missing). */
  gradeDetail: string;
  /** Share of the gold evidence URLs among the sources the answer's claims cite. */
  evidenceRecall: number;
  /** The sources the answer cites, by URL (a document read from a stored blob named by the URL it was fetched from). */
  citedSources: string[];
  /** Quotes of the cited findings, and how many stand verbatim in the stored text they cite. */
  quotes: number;
  quotesFound: number;
  /** quotesFound / quotes; null when the answer cites no quote. */
  quoteSupport: number | null;
}

const sameUrl = (u: string) => normalizeUrl(u) ?? u;

/** Every stored blob's URL as a tool first recorded it (a PDF web_fetch stored, then read by document_read as blob:<sha>). */
function urlsByBlob(events: readonly RecordedEvent[]): Map<string, string> {
  const byBlob = new Map<string, string>();
  for (const e of events) {
    if (e.type !== "tool_completed") continue;
    for (const s of ((e.data as { sources?: { url: string; rawSha256: string }[] }).sources ?? [])) {
      if (!s.url.startsWith("blob:") && !byBlob.has(s.rawSha256)) byBlob.set(s.rawSha256, s.url);
    }
  }
  return byBlob;
}

/**
 * Grades one run of a gold case from its log and the texts it cites. The
 * answer graded is its supported observed claims: the summary, a claim the
 * checker does not support, a judgment and a not_collected claim count for
 * nothing. Recall counts gold evidence URLs among the cited sources; support
 * counts the cited findings' quotes that stand verbatim in their stored text
 * (under the one quote normalisation, handoff/normaliseQuote.ts).
 * The case passes when the answer is correct and the run's own checks hold
 * (an answer, every number in its sources, citations valid, no advice).
 */
export function scoreGoldRun(c: GoldCase, runId: string, events: readonly RecordedEvent[], texts: ReadonlyMap<string, string>): GoldScore {
  const base = scoreRun({ evalCase: { id: c.id, expected: [], forbidden: [], minCoverage: 0, variant: "delegating" }, runId, events, texts });
  const { claims, supported } = checkedAnswer(runId, events, texts);
  // Only what the checker supports is credited: the summary is Main's prose, and a judgment or not_collected claim rests on nothing.
  const grade = claims.answer ? gradeAnswer(c, supported.map((s) => s.text).join("\n")) : { correct: false, detail: "no answer" };

  const findings = claims.claims.filter((cl) => cl.basis === "observed").flatMap((cl) => cl.findings);
  const byBlob = urlsByBlob(events);
  const urlOf = (url: string, raw: string) => (url.startsWith("blob:") ? (byBlob.get(raw) ?? url) : url);
  const cited = new Set<string>();
  for (const f of findings) {
    for (const t of f.toolCalls) for (const s of t.sources) cited.add(sameUrl(urlOf(s.url, s.rawSha256)));
    for (const q of f.quotes) if (q.source?.kind === "source") cited.add(sameUrl(urlOf(q.source.url, q.source.rawSha256)));
  }
  const gold = [...new Set(c.evidence.map(sameUrl))];
  const recall = gold.filter((u) => cited.has(u)).length / gold.length;

  const quotes = findings.flatMap((f) => f.quotes);
  const found = quotes.filter((q) => {
    const sha = q.blob?.sha256 ?? (q.source?.kind === "source" ? q.source.textSha256 : q.source?.sha256);
    const stored = sha === undefined ? undefined : texts.get(sha);
    return stored !== undefined && findQuote(stored, q.text).length > 0;
  }).length;

  return {
    ...base,
    answerType: c.answer_type,
    accuracy: grade.correct ? 1 : 0,
    gradeDetail: grade.detail,
    evidenceRecall: recall,
    citedSources: [...cited].sort(),
    quotes: quotes.length,
    quotesFound: found,
    quoteSupport: quotes.length ? found / quotes.length : null,
    failures: [...(grade.correct ? [] : [`wrong: ${grade.detail}`]), ...base.failures],
  };
}
