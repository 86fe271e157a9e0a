import type { Database } from "../../db/openDatabase.ts";
import type { EventStore } from "../../events/index.ts";
import { CONFIGURED_CAPS } from "../../governance/index.ts";
import { baselineResearcher } from "../../models/baseline/baselineResearcher.ts";
import type { Model } from "../../models/types.ts";
import { type HostSettings, runTools, runtimeFactory } from "../../runs/index.ts";
import { hostEvalRun } from "../../runs/host/hostEvalRun.ts";
import { researchCorpus } from "../../runs/host/scenarioCorpus.ts";
import type { GoldCase } from "./goldCase.ts";
import { type GoldScore, scoreGoldRun } from "./scoreGoldRun.ts";

/** `baseline`: the scripted baseline researcher (models/baseline/); `live`: the configured model. */
export type GoldLane = "baseline" | "live";

export interface GoldSuiteOptions {
  database: Database;
  store: EventStore;
  lane: GoldLane;
  /** The configured model (the live lane). */
  realModel?: () => Model;
  settings?: HostSettings;
  workspaceRoot?: string;
  onCase?: (score: GoldScore) => void;
}

/**
 * Runs a gold suite's cases one after another in this process: each over its
 * own corpus folder (served on loopback, searched over its pages, PDFs and
 * data), answered by the lane's researcher through the same runtime as any
 * run, then graded against the gold answer (scoreGoldRun.ts).
 */
export async function runGoldSuite(cases: readonly GoldCase[], options: GoldSuiteOptions): Promise<GoldScore[]> {
  const scores: GoldScore[] = [];
  for (const c of cases) {
    const corpus = await researchCorpus(c.corpusDir);
    const buildRuntime = runtimeFactory(options.settings, {
      ...(options.lane === "baseline" ? { offlineModel: () => baselineResearcher({ childTokens: CONFIGURED_CAPS.investigate.maxTokens }) } : { model: () => options.realModel!() }),
      tools: () => runTools({ web: { mapUrl: corpus.mapUrl, search: corpus.search }, compute: options.settings?.compute }),
      workspaceRoot: options.workspaceRoot,
      corpusDir: c.corpusDir,
    });
    const run = await hostEvalRun({ database: options.database, store: options.store, buildRuntime }, { question: c.question, tags: { evalCase: c.id, evalLane: options.lane } });
    const score = scoreGoldRun(c, run.runId, run.events, run.texts);
    scores.push(score);
    options.onCase?.(score);
  }
  return scores;
}
