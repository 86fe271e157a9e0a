import { type CheckResult, checkAnswer, sourceKey } from "../checker/checkAnswer.ts";
import type { RecordedEvent } from "../events/index.ts";
import { claimsOfEvents } from "../projections/claimChains.ts";
import { reportOfEvents } from "../projections/runReportView.ts";
import type { RunClaims } from "../projections/claimTypes.ts";
import { type EvalCase, holds, itemLabel } from "./evalCase.ts";

/** What one run of a case scores: pure figures from its log and the checker, so any variant is scored alike. */
export interface CaseScore {
  caseId: string;
  variant: string;
  runId: string;
  answered: boolean;
  /** Expected items present in the answer's supported claims, of all expected (1 when none are expected). */
  coverage: number;
  missing: string[];
  forbiddenFound: string[];
  /** The case's gaps the answer does not name in a not_collected claim. */
  gapsNotNamed?: string[];
  /** The case's artifacts the run did not publish. */
  artifactsMissing?: string[];
  claims: number;
  observedClaims: number;
  /** Supported claims of the claims that say they were observed (1 when none do). */
  supportRate: number;
  citations: number;
  /** Citations that lead to a finding, its quotes and tool calls in the log, of all citations (1 when none). */
  citationValidity: number;
  /** Citations naming an executor, finding or tool call the log does not hold. */
  fabricatedCitations: number;
  numbersChecked: number;
  /** Numbers of the claims and summary found in the texts they cite (1 when none were checked). */
  numberFaithfulness: number;
  adviceViolations: number;
  mainPeakInputTokens: number;
  mainInputTokens: number;
  tokens: number;
  costMicros: number;
  costEstimated: boolean;
  supportedClaims: number;
  tokensPerSupportedClaim: number | null;
  costMicrosPerSupportedClaim: number | null;
  /** Tokens of Children none of whose findings the answer cites. */
  wastedChildTokens: number;
  wastedChildren: number;
  duplicateFetches: number;
  wallTimeMs: number | null;
  /** Why the case fails; empty when it passes. */
  failures: string[];
  /**
   * What the score measures: "plumbing" when the expected phrases come from the
   * script that wrote the answer (a scenario's, or the scripted lane's lookup),
   * so it shows the runtime carried them, not that an answer was right;
   * "phrases" when a model wrote the answer. Gold cases are graded apart (eval/gold/).
   */
  graded?: "plumbing" | "phrases";
}

export interface ScoreInput {
  evalCase: Pick<EvalCase, "id" | "expected" | "forbidden" | "minCoverage" | "variant"> & Partial<Pick<EvalCase, "gaps" | "artifacts">>;
  runId: string;
  events: readonly RecordedEvent[];
  /** Stored text by blob sha256: what the cited sources, quotes and artifacts said when they were read. */
  texts: ReadonlyMap<string, string>;
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 1 : part / whole);

/** The answer as text: summary, headings and claims; forbidden items are looked for in all of it. */
function answerText(events: readonly RecordedEvent[], claims: RunClaims): { summary: string; headings: string[]; all: string } {
  const settled = claims.answer && events.find((e): e is RecordedEvent<"settled"> => e.eventId === claims.answer!.eventId);
  const body = (settled?.data.answer ?? {}) as { summary?: unknown; sections?: { heading?: unknown }[] };
  const summary = typeof body.summary === "string" ? body.summary : "";
  const headings = Array.isArray(body.sections) ? body.sections.map((s) => String(s.heading ?? "")) : [];
  return { summary, headings, all: [summary, ...headings, ...claims.claims.map((c) => c.text)].join("\n") };
}

/** A run's answer read back and checked: its claim chains, report, text and the checker's verdicts (null without an answer). */
export function checkedAnswer(runId: string, events: readonly RecordedEvent[], texts: ReadonlyMap<string, string>) {
  const claims = claimsOfEvents(runId, events);
  const report = reportOfEvents(runId, events);
  const text = answerText(events, claims);
  const check: CheckResult | null = claims.answer
    ? checkAnswer({ claims, summary: text.summary, headings: text.headings, texts, rereads: notReread(claims) })
    : null;
  const verdicts = new Map(check?.claims.map((c) => [c.claimId, c]) ?? []);
  /** Observed claims the checker supports: the only ones an answer is credited with (a not_collected or judgment claim scores 0). */
  const supported = claims.claims.filter((c) => c.basis === "observed" && verdicts.get(c.id)?.verdict === "supported");
  return { claims, report, text, check, supported };
}

/**
 * Scores one run of a case from its events and the texts its sources were
 * read as: coverage and forbidden items against the answer's text; support,
 * faithfulness and advice from the deterministic checker (sources not read
 * again: the run's own record is what is judged); citations from the claim
 * chains; tokens, cost, fetches and wall time from the run report.
 */
export function scoreRun({ evalCase, runId, events, texts }: ScoreInput): CaseScore {
  const { claims, report, text, check, supported } = checkedAnswer(runId, events, texts);
  // Coverage counts what supported claims say: a phrase in a not_collected, judgment or flagged claim (or only in the summary) is not covered.
  const covered = supported.map((c) => c.text).join("\n");
  const missing = evalCase.expected.filter((i) => !holds(covered, i)).map(itemLabel);
  const forbiddenFound = evalCase.forbidden.filter((i) => holds(text.all, i)).map(itemLabel);
  const admitted = claims.claims.filter((c) => c.basis === "not_collected").map((c) => c.text).join("\n");
  const gapsNotNamed = (evalCase.gaps ?? []).filter((i) => !holds(admitted, i)).map(itemLabel);
  const published = new Set(events.flatMap((e) => (e.type === "tool_completed" ? ((e.data as { artifacts?: { path: string }[] }).artifacts ?? []).map((a) => a.path.split("/").at(-1)!) : [])));
  const artifactsMissing = (evalCase.artifacts ?? []).filter((name) => !published.has(name));
  const observed = claims.claims.filter((c) => c.basis === "observed");
  const supportedClaims = supported.length;
  const findings = claims.claims.flatMap((c) => c.findings);
  const fabricated = findings.filter((f) => f.problems.length > 0).length;
  const numbers = (check?.claims.reduce((n, c) => n + c.numbers.length, 0) ?? 0) + (check?.summary.numbers.length ?? 0);
  const unsupported = (check?.claims.reduce((n, c) => n + c.unsupportedNumbers.filter((u) => !u.startsWith("page ")).length, 0) ?? 0) + (check?.summary.unsupportedNumbers.length ?? 0);

  const main = report.executors.find((e) => e.executorId === report.mainExecutorId);
  const cited = new Set(findings.map((f) => f.executorId));
  const wasted = report.executors.filter((e) => e.role === "child" && !cited.has(e.executorId));
  const tokens = report.run.tokens.input + report.run.tokens.output;
  const score: Omit<CaseScore, "failures"> = {
    caseId: evalCase.id,
    variant: evalCase.variant,
    runId,
    answered: claims.answer !== null,
    coverage: ratio(evalCase.expected.length - missing.length, evalCase.expected.length),
    missing,
    forbiddenFound,
    ...(evalCase.gaps?.length ? { gapsNotNamed } : {}),
    ...(evalCase.artifacts?.length ? { artifactsMissing } : {}),
    claims: claims.claims.length,
    observedClaims: observed.length,
    supportRate: ratio(supportedClaims, observed.length),
    citations: findings.length,
    citationValidity: ratio(findings.length - fabricated, findings.length),
    fabricatedCitations: fabricated,
    numbersChecked: numbers,
    numberFaithfulness: ratio(numbers - unsupported, numbers),
    adviceViolations: check?.advice.length ?? 0,
    mainPeakInputTokens: main?.peakInputTokens ?? 0,
    mainInputTokens: main?.tokens.input ?? 0,
    tokens,
    costMicros: report.run.cost.micros,
    costEstimated: report.run.cost.estimated,
    supportedClaims,
    tokensPerSupportedClaim: supportedClaims ? Math.round(tokens / supportedClaims) : null,
    costMicrosPerSupportedClaim: supportedClaims ? Math.round(report.run.cost.micros / supportedClaims) : null,
    wastedChildTokens: wasted.reduce((n, e) => n + e.tokens.input + e.tokens.output, 0),
    wastedChildren: wasted.length,
    duplicateFetches: report.run.fetches.duplicatesAvoided + report.run.fetches.refetched,
    wallTimeMs: report.run.wallTimeMs,
  };
  return { ...score, failures: failuresOf(score, evalCase.minCoverage) };
}

/** A case passes with an answer, its coverage, no forbidden item, every number found in its sources, every citation valid, none fabricated, no advice. */
function failuresOf(s: Omit<CaseScore, "failures">, minCoverage: number): string[] {
  const failures: string[] = [];
  if (!s.answered) failures.push("no answer");
  if (s.coverage < minCoverage) failures.push(`coverage ${pct(s.coverage)} < ${pct(minCoverage)}: missing ${s.missing.join("; ")}`);
  if (s.forbiddenFound.length) failures.push(`forbidden: ${s.forbiddenFound.join("; ")}`);
  if (s.gapsNotNamed?.length) failures.push(`gaps not named as not collected: ${s.gapsNotNamed.join("; ")}`);
  if (s.artifactsMissing?.length) failures.push(`not published: ${s.artifactsMissing.join("; ")}`);
  // One number its cited sources do not state fails the case: an answer is not "mostly right" about a figure.
  if (s.numberFaithfulness < 1) failures.push(`numbers faithful ${pct(s.numberFaithfulness)} (${Math.round((1 - s.numberFaithfulness) * s.numbersChecked)} of ${s.numbersChecked} not in the cited sources)`);
  if (s.citationValidity < 1) failures.push(`citation validity ${pct(s.citationValidity)}`);
  if (s.fabricatedCitations > 0) failures.push(`${s.fabricatedCitations} fabricated citations`);
  if (s.adviceViolations > 0) failures.push(`${s.adviceViolations} advice violations`);
  return failures;
}

export const pct = (r: number): string => `${(r * 100).toFixed(r === 1 || r === 0 ? 0 : 1)}%`;

/** Every cited source marked as not read again: the checker then judges the answer against what the run recorded. */
function notReread(claims: RunClaims) {
  const rereads = new Map<string, import("../checker/checkAnswer.ts").Reread>();
  for (const f of claims.claims.flatMap((c) => c.findings)) {
    const sources = [...f.toolCalls.flatMap((t) => t.sources), ...f.quotes.flatMap((q) => (q.source?.kind === "source" ? [q.source] : []))];
    for (const s of sources) {
      rereads.set(sourceKey(s.url, s.rawSha256), { url: s.url, kind: s.sourceKind, recordedRawSha256: s.rawSha256, state: "not_reread", currentRawSha256: null, currentText: null, rereadAt: "" });
    }
  }
  return rereads;
}
