import { ScriptedModel } from "../models/index.ts";
import type { Model } from "../models/types.ts";
import { ETF_CORPUS, HOLDINGS_CSV_URL, HOLDINGS_PAGE_URL } from "./etfOverlap/corpusUrls.ts";
import { OFFLINE_QUESTION, offlineResearchModel, offlineResearchPolicy } from "./etfOverlap/etfOverlapScenario.ts";
import { BRIEFING_CORPUS, MORNING_BRIEFING_QUESTION } from "./morningBriefing/briefingPlan.ts";
import { morningBriefingModel, morningBriefingPolicy } from "./morningBriefing/morningBriefingScenario.ts";
import { pcMeasuresModel, pcMeasuresPolicy } from "./pcMeasures/pcMeasuresScenario.ts";
import { type Routes, singleAgentPolicy } from "./singleAgentScript.ts";
import { PC_MEASURES_QUESTION } from "./pcMeasures/variants.ts";

/** A scripted offline scenario: its own question and the scripted model that answers it, with no API key. */
export interface Scenario {
  name: string;
  /** One line for --help and error messages. */
  summary: string;
  question: string;
  model(options: { latencyMs?: number }): Model;
  /** The same work by one scripted agent holding every tool (`--single-agent`; scenarios/singleAgentScript.ts). */
  singleAgentModel(options: { latencyMs?: number }): Model;
  /** Reads the repository's corpus/ (or ARIADNE_CORPUS_DIR's) through its hosts: a host without it refuses the run, saying where it looked. */
  needsSharedCorpus?: boolean;
  /** What of the scenario computes in the sandbox (bubblewrap and Python): `ariadne run` names it at the start when the sandbox is missing. */
  needsSandbox?: string;
  /** The folder of scenarios/corpora whose pages web_search searches; absent, the corpus's pages. */
  searchPages?: string;
}

function singleAgentModel(name: string, policy: Parameters<typeof singleAgentPolicy>[0], routes?: Routes) {
  return (options: { latencyMs?: number }): Model => new ScriptedModel({ name: `${name}-single-agent`, policy: singleAgentPolicy(policy, routes), latencyMs: options.latencyMs });
}

/** The scenarios `ariadne run --scenario NAME` and the API's `"offline": true` can run; add one here. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  "etf-overlap": {
    name: "etf-overlap",
    summary: "Main delegates fees, risks and holdings overlap of the ADIV ETF to three Children, who search, fetch and read its pages, PDF and CSV files",
    question: OFFLINE_QUESTION,
    model: offlineResearchModel,
    singleAgentModel: singleAgentModel("offline-research", offlineResearchPolicy, { [HOLDINGS_CSV_URL]: HOLDINGS_PAGE_URL }),
    searchPages: ETF_CORPUS,
    needsSandbox: "holdings overlap (the overlap Child's compute)",
  },
  "pc-measures": {
    name: "pc-measures",
    summary: "Main fetches the Grunfeld data and delegates seven standard-error variants to seven compute Children in parallel, then tabulates pc_measures.csv",
    question: PC_MEASURES_QUESTION,
    model: pcMeasuresModel,
    singleAgentModel: singleAgentModel("pc-measures", pcMeasuresPolicy),
    needsSharedCorpus: true,
    needsSandbox: "seven standard-error variants (each Child's compute)",
  },
  "morning-briefing": {
    name: "morning-briefing",
    summary: "a planner Main delegates news, on-chain and regulatory Children over the briefing pages (two hostile), each writing a findings file; a writer Child turns them into briefing.md with sources",
    question: MORNING_BRIEFING_QUESTION,
    model: morningBriefingModel,
    singleAgentModel: singleAgentModel("morning-briefing", morningBriefingPolicy),
    searchPages: BRIEFING_CORPUS,
  },
};

/** What runs when no question is given and no scenario is named. */
export const DEFAULT_SCENARIO = "etf-overlap";

export const scenarioNames = (): string[] => Object.keys(SCENARIOS);

export const findScenario = (name: string): Scenario | undefined => (Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name] : undefined);
