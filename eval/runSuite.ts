import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import type { Model } from "../models/types.ts";
import { type BuildRuntime, type HostSettings, runTools, runtimeFactory } from "../runs/index.ts";
import { hostEvalRun } from "../runs/host/hostEvalRun.ts";
import { offlineCorpus } from "../runs/host/scenarioCorpus.ts";
import { findScenario } from "../scenarios/index.ts";
import { caseModel } from "./caseModel.ts";
import type { RecordedEvent } from "../events/index.ts";
import { type IsolationComparison, compareIsolation } from "../projections/index.ts";
import type { EvalCase, Variant } from "./evalCase.ts";
import { itemLabel } from "./evalCase.ts";
import { judgedAnswerOf } from "./live/judgedAnswerOf.ts";
import { judgeAnswer, type Verdict } from "./live/judgeAnswer.ts";
import { readRecordings, recordingsFile, writeRecordings } from "./replay/recordings.ts";
import { replayModel } from "./replay/replayModel.ts";
import { type CaseScore, scoreRun } from "./scoreRun.ts";

export type Lane = "scripted" | "replay" | "live";

export interface Trial {
  runId: string;
  pass: boolean;
  failures: string[];
  verdicts: Verdict[];
}

/** A live case: k trials, passing (pass^k) only when every trial passes. */
export interface LiveCase {
  caseId: string;
  variant: string;
  k: number;
  passes: number;
  passK: boolean;
  trials: Trial[];
}

/** One case run both ways: what isolation buys, from the two scored runs' events (projections/isolationComparison.ts). */
export interface CaseComparison extends IsolationComparison {
  caseId: string;
  supportRate: { delegated: number; singleAgent: number };
}

export interface SuiteRun {
  lane: Lane;
  /** One score per case and variant; in the live lane, its weakest trial's (lowest support rate). */
  cases: CaseScore[];
  live?: LiveCase[];
  /** With singleAgent: each case's delegated run against its single-agent run. */
  comparisons?: CaseComparison[];
}

export interface SuiteOptions {
  database: Database;
  store: EventStore;
  lane: Lane;
  /** The replay lane: ask the real model for what is not recorded and keep its responses. */
  record?: boolean;
  /** The real model (replay --record, live), and the live lane's judge. */
  realModel?: () => Model;
  judge?: { model: Model; name: string };
  /** Also run each delegating case as a single agent holding every tool, and compare the two. */
  singleAgent?: boolean;
  /** Trials per case in the live lane. */
  trials?: number;
  corpusDir?: string;
  workspaceRoot?: string;
  settings?: HostSettings;
  /** Called as each case is scored (progress on the command line). */
  onCase?: (score: CaseScore) => void;
}

/** The runtime of one case's run: the lane's model, the corpus its cases read, no host check (the eval scores the record). */
async function buildFor(c: EvalCase, model: Model, options: SuiteOptions): Promise<BuildRuntime> {
  const scenario = c.scenario ? findScenario(c.scenario)! : { needsSharedCorpus: true };
  const corpus = await offlineCorpus(scenario, options.corpusDir);
  const factory = runtimeFactory(options.settings, {
    ...(options.lane === "scripted" ? { offlineModel: () => model } : { model: () => model }),
    tools: () => runTools({ web: { mapUrl: corpus.mapUrl, search: corpus.search }, compute: options.settings?.compute }),
    workspaceRoot: options.workspaceRoot,
  });
  return (store, lease) => factory(store, lease);
}

async function runOnce(c: EvalCase, model: Model, options: SuiteOptions) {
  const buildRuntime = await buildFor(c, model, options);
  const run = await hostEvalRun(
    { database: options.database, store: options.store, buildRuntime },
    { question: c.question, scenario: c.scenario, tags: { evalCase: c.id }, singleAgent: c.variant === "single-agent" },
  );
  const graded = c.scenario || options.lane === "scripted" ? ("plumbing" as const) : ("phrases" as const);
  return { run, score: { ...scoreRun({ evalCase: c, runId: run.runId, events: run.events, texts: run.texts }), graded } };
}

/** The variants a case is run as: its own, and with singleAgent a delegating case as a single agent too. */
const variantsOf = (c: EvalCase, options: SuiteOptions): Variant[] => (options.singleAgent && c.variant === "delegating" ? ["delegating", "single-agent"] : [c.variant]);

/**
 * Runs a suite's cases one after another in this process, on one store, in
 * the lane asked for, and scores each run (eval/scoreRun.ts); with
 * singleAgent, each case twice, and the two scored runs compared.
 */
export async function runSuite(cases: readonly EvalCase[], options: SuiteOptions): Promise<SuiteRun> {
  const scores: CaseScore[] = [];
  const live: LiveCase[] = [];
  const comparisons: CaseComparison[] = [];
  for (const evalCase of cases) {
    const scored = new Map<Variant, { score: CaseScore; events: readonly RecordedEvent[] }>();
    for (const variant of variantsOf(evalCase, options)) scored.set(variant, await runVariant({ ...evalCase, variant }, options, scores, live));
    const d = scored.get("delegating");
    const s = scored.get("single-agent");
    if (d && s) {
      comparisons.push({
        caseId: evalCase.id,
        ...compareIsolation({ runId: d.score.runId, events: d.events }, { runId: s.score.runId, events: s.events }),
        supportRate: { delegated: d.score.supportRate, singleAgent: s.score.supportRate },
      });
    }
  }
  return { lane: options.lane, cases: scores, ...(options.lane === "live" && { live }), ...(options.singleAgent && { comparisons }) };
}

/** One variant of a case run and scored in the suite's lane: its score (pushed to `scores`) and the scored run's events. */
async function runVariant(c: EvalCase, options: SuiteOptions, scores: CaseScore[], live: LiveCase[]): Promise<{ score: CaseScore; events: readonly RecordedEvent[] }> {
  const events = new Map<string, readonly RecordedEvent[]>();
  const once = async (model: Model) => {
    const result = await runOnce(c, model, options);
    events.set(result.run.runId, result.run.events);
    return result;
  };
  if (options.lane === "scripted") {
    scores.push((await once(caseModel(c, c.variant))).score);
  } else if (options.lane === "replay") {
    const file = recordingsFile(c.dir);
    const model = replayModel(await readRecordings(file), options.record ? options.realModel?.() : undefined);
    const { score } = await once(model);
    const misses = model.misses();
    scores.push(misses.length ? { ...score, failures: [`replay miss: ${misses[0]!.message}`, ...score.failures] } : score);
    if (options.record && !misses.length) await writeRecordings(file, model.recorded());
  } else {
    const k = options.trials ?? 3;
    const trials: Trial[] = [];
    const trialScores: CaseScore[] = [];
    for (let i = 0; i < k; i++) {
      const { run, score } = await once(options.realModel!());
      const judged = await judgeAnswer(options.judge!.model, judgedAnswerOf(c.question, c.expected.map(itemLabel), run.runId, run.events), options.judge!.name);
      const failures = [...score.failures, ...(judged.pass ? [] : ["the judge failed it"])];
      trials.push({ runId: run.runId, pass: failures.length === 0, failures, verdicts: judged.verdicts });
      trialScores.push({ ...score, failures });
    }
    const passes = trials.filter((t) => t.pass).length;
    live.push({ caseId: c.id, variant: c.variant, k, passes, passK: passes === k, trials });
    const weakest = trialScores.reduce((a, b) => (b.supportRate < a.supportRate ? b : a));
    scores.push({ ...weakest, failures: passes === k ? [] : [`pass^${k}: ${passes} of ${k} trials passed`, ...weakest.failures] });
  }
  options.onCase?.(scores.at(-1)!);
  const score = scores.at(-1)!;
  return { score, events: events.get(score.runId)! };
}
