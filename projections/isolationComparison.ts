import type { RecordedEvent } from "../events/index.ts";
import { claimsOfEvents } from "./claimChains.ts";
import { reportOfEvents } from "./runReportView.ts";

/** One run of a comparison: its id and its events, as the log has them. */
export interface ComparedRun {
  runId: string;
  events: readonly RecordedEvent[];
}

/** What one run spent and what its answer holds, from its events alone. */
export interface IsolationFigures {
  runId: string;
  /** Recorded at submission (run_submitted options) or at Main's admission: one executor, no delegate. */
  singleAgent: boolean;
  executors: number;
  /** Main's largest request's input tokens: the context it worked in at its widest. */
  mainPeakInputTokens: number;
  /** Main's input and output tokens over all its turns. */
  mainInputTokens: number;
  mainOutputTokens: number;
  /** Input and output tokens of every executor, and their sum. */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Priced per turn as the run report prices it (governance/prices.ts: a scripted model costs nothing). */
  costMicros: number;
  /** A scripted model's tokens (and so cost) are estimated, four characters a token. */
  estimated: boolean;
  claims: {
    total: number;
    observed: number;
    /**
     * Observed claims whose every cited finding chains, with no problem, to a
     * committed finding and at least one recorded tool call (projections/claimChains.ts).
     */
    supported: number;
    /** Claims the checker found supported (check_completed); null when the run has not been checked. */
    checkerSupported: number | null;
  };
}

/** The delegated run and the single-agent control on the same case, and their ratios (single / delegated; null over zero). */
export interface IsolationComparison {
  delegated: IsolationFigures;
  singleAgent: IsolationFigures;
  ratios: { mainPeakInputTokens: number | null; mainInputTokens: number | null; totalTokens: number | null; costMicros: number | null };
}

/**
 * What isolation buys on one case: the figures of a delegated run against a
 * single-agent run (`ariadne run --single-agent`) of the same question. Pure
 * over the two runs' events, so the evaluation harness and a bundle's reader
 * compute the same numbers with no store.
 */
export function compareIsolation(delegated: ComparedRun, singleAgent: ComparedRun): IsolationComparison {
  const d = isolationFigures(delegated);
  const s = isolationFigures(singleAgent);
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
  return {
    delegated: d,
    singleAgent: s,
    ratios: {
      mainPeakInputTokens: ratio(s.mainPeakInputTokens, d.mainPeakInputTokens),
      mainInputTokens: ratio(s.mainInputTokens, d.mainInputTokens),
      totalTokens: ratio(s.totalTokens, d.totalTokens),
      costMicros: ratio(s.costMicros, d.costMicros),
    },
  };
}

/** One run's figures for a comparison (pure). */
export function isolationFigures(run: ComparedRun): IsolationFigures {
  const report = reportOfEvents(run.runId, run.events);
  const main = report.executors.find((e) => e.executorId === report.mainExecutorId);
  const claims = claimsOfEvents(run.runId, run.events).claims;
  const observed = claims.filter((c) => c.basis === "observed");
  const supported = observed.filter((c) => c.findings.length > 0 && c.findings.every((f) => f.problems.length === 0 && f.toolCalls.length > 0));
  const check = [...run.events].reverse().find((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  return {
    runId: run.runId,
    singleAgent: isSingleAgent(run.events),
    executors: report.executors.length,
    mainPeakInputTokens: main?.peakInputTokens ?? 0,
    mainInputTokens: main?.tokens.input ?? 0,
    mainOutputTokens: main?.tokens.output ?? 0,
    inputTokens: report.run.tokens.input,
    outputTokens: report.run.tokens.output,
    totalTokens: report.run.tokens.input + report.run.tokens.output,
    costMicros: report.run.cost.micros,
    estimated: report.run.tokens.estimated || report.run.cost.estimated,
    claims: {
      total: claims.length,
      observed: observed.length,
      supported: supported.length,
      checkerSupported: check ? check.data.claims.filter((c) => c.verdict === "supported").length : null,
    },
  };
}

/** Whether the log says the run was made as a single agent (its submission's options, or Main's admission). */
export function isSingleAgent(events: readonly RecordedEvent[]): boolean {
  return events.some(
    (e) =>
      (e.type === "run_submitted" && (e as RecordedEvent<"run_submitted">).data.options.singleAgent === true) ||
      (e.type === "executor_admitted" && (e as RecordedEvent<"executor_admitted">).data.singleAgent === true),
  );
}
