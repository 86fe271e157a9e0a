import { Runtime } from "../../actors/index.ts";
import { ConfigError } from "../../core/errors.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { CONFIGURED_CAPS, createRunGovernance, parseCaps } from "../../governance/index.ts";
import { type Model, createModel, resolveModels } from "../../models/index.ts";
import { DEFAULT_SCENARIO, findScenario } from "../../scenarios/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import type { ToolRegistry } from "../../tools/index.ts";
import type { BuildRuntime } from "./hostRun.ts";
import type { HostSettings } from "./hostSettings.ts";
import { offlineCorpus, researchCorpus } from "./scenarioCorpus.ts";
import { baselineResearcher } from "../../models/baseline/baselineResearcher.ts";
import { chooseSearchProvider } from "../../tools/index.ts";
import { realToolNames, runTools } from "./runTools.ts";
import { realFetchLimits, realWebOptions } from "./realWebOptions.ts";
import { scriptedCheckerModel } from "../../scenarios/scriptedChecker.ts";
import { workspaceRootFor } from "./workspaceRootFor.ts";
import { type AnswerDeltas, answerDeltas, publishingMainDeltas } from "./answerDeltas.ts";

export type { HostSettings };

export interface RuntimeFactoryOptions {
  /** The run's tools; default runTools. Tests wrap the same tools (same specs) to watch their calls. */
  tools?: () => ToolRegistry;
  /** A fresh event sink per hosted run (the command line prints progress); default none. */
  progress?: () => (event: RecordedEvent) => void;
  /** The scripted model of an offline run; default the offline scenario's. Tests script their own runs with it. */
  offlineModel?: () => Model;
  /** The model every run is hosted with, whatever its mode, named as the settings name it (the eval's replay and live lanes). */
  model?: () => Model;
  /** Executors' working folders live under `<workspaceRoot>/<runId>/<executorId>/`; wins over the settings' and the default. */
  workspaceRoot?: string;
  /** The corpus offline runs fetch and search; wins over the settings' (default the repository's corpus/). */
  corpusDir?: string;
  /** Where Main's reply is published as it streams (live `answer.delta` events); default the process's own. */
  deltas?: AnswerDeltas;
}

/**
 * How a run is hosted, by whichever process hosts it (run, resume, worker, the
 * HTTP server's worker): the run's recorded options pick the scripted offline
 * scenario or the configured model, its caps, limits and reviewer mode; the
 * store is the one the run's lease gives (fenced, drainable).
 */
export function runtimeFactory(settings: HostSettings = {}, options: RuntimeFactoryOptions = {}): BuildRuntime {
  const env = settings.model ?? {};
  const build: BuildRuntime = async (store, lease) => {
    const { mode, caps, limits, reviewer, modelIdleTimeoutMs, allowedProfiles, models, singleAgent } = lease.options;
    const baseline = mode === "baseline";
    // ARIADNE_SEARCH=anthropic: the model's web_search is Anthropic's server tool, run inside its calls.
    const search = chooseSearchProvider(settings.search ?? {});
    const webSearch = search.provider === "anthropic" ? search.tool : undefined;
    const real = options.model?.() ?? (mode === "model" ? createModel(env, { idleTimeoutMs: modelIdleTimeoutMs, webSearch }) : null);
    if (mode === "model" && !real) {
      throw new ConfigError(`run ${lease.runId} asks for the configured model: set ANTHROPIC_API_KEY to run it`);
    }
    // The run's own hint (a test harness tags its runs) wins, so whichever worker takes it paces it alike.
    const latencyMs = Number(lease.options.tags.scriptedLatencyMs ?? settings.scriptedLatencyMs ?? 0) || undefined;
    const scenario = real || options.offlineModel || baseline ? null : findScenario(lease.options.scenario ?? DEFAULT_SCENARIO);
    if (!real && !options.offlineModel && !baseline && !scenario) throw new ConfigError(`run ${lease.runId} asks for scenario "${lease.options.scenario}", which this host does not have`);
    const runCaps = caps ? parseCaps(caps) : CONFIGURED_CAPS;
    const model = real ?? options.offlineModel?.() ?? (baseline ? baselineResearcher({ latencyMs, childTokens: runCaps.investigate.maxTokens }) : (singleAgent ? scenario!.singleAgentModel : scenario!.model)({ latencyMs }));
    const names = resolveModels(env, models);
    // A scripted scenario reaches its corpus through the corpus hosts (*.corpus.test) on a local server.
    const corpus = options.tools ? null : scenario ? await offlineCorpus(scenario, options.corpusDir ?? settings.corpusDir) : baseline ? await baselineCorpus(settings, options.corpusDir) : null;
    // The Checker's tools read the run's log and its sources again, as `ariadne check` does.
    const checker = { store, readers: () => Promise.resolve(build.sourceReaders!(store.database, lease)) };
    // A real question's run searches and fetches the real web, politely, with the configured provider; never the demo tools.
    const web = corpus ? { mapUrl: corpus.mapUrl, search: corpus.search } : await realWebOptions(settings, options.corpusDir ?? settings.corpusDir);
    const tools = options.tools?.() ?? runTools({ web, compute: settings.compute, checker });
    return new Runtime({
      store,
      models: {
        main: publishingMainDeltas(model, options.deltas ?? answerDeltas, { runId: lease.runId, executorId: lease.mainExecutorId }),
        child: model,
        reviewer: model,
        // Offline, the Checker is scripted on its own (scenarios/scriptedChecker.ts): it runs every check tool and follows their outputs.
        checker: real ?? scriptedCheckerModel({ latencyMs }),
      },
      modelNames: real ? names : { main: "scripted:main", child: "scripted:child", reviewer: "scripted:reviewer", checker: "scripted:checker" },
      tools,
      // The offline scenarios may ask for the demo corpus tools; a real question gets the real tools only.
      ...(mode !== "offline" && { rootAllowed: [...realToolNames(tools), "delegate"] }),
      allowedProfiles,
      singleAgent,
      onEvent: options.progress?.(),
      limits,
      // Grants follow the run's depth cap (--max-depth): a Child may hold delegate only below it.
      maxDepth: runCaps.delegation.maxDepth,
      // The run's shared budget, Remind and limits: consulted before every model and tool call.
      governance: ({ post }) => createRunGovernance({ db: store.database, post, caps: runCaps, epoch: lease.epoch }),
      reviewer,
      // What the run's tools read and wrote, content-addressed beside its log (verify checks them).
      blobs: createDatabaseBlobStore(store.database.db),
      workspaceRoot: options.workspaceRoot ?? workspaceRootFor(store.database, settings.workspaceRoot),
    });
  };
  // The checker reads a run's sources again as its tools read them: the same corpus map, blobs and workspaces.
  build.sourceReaders = async (database, lease) => {
    const scenario = lease.options.mode === "offline" && !options.offlineModel ? findScenario(lease.options.scenario ?? DEFAULT_SCENARIO) : null;
    const corpus = scenario ? await offlineCorpus(scenario, options.corpusDir ?? settings.corpusDir) : lease.options.mode === "baseline" ? await baselineCorpus(settings, options.corpusDir) : null;
    return {
      // A real run's pages are read again as they were fetched: the host's address policy, User-Agent and pacing.
      web: corpus ? { mapUrl: corpus.mapUrl } : realFetchLimits(settings),
      blobs: createDatabaseBlobStore(database.db),
      workspaceRoot: options.workspaceRoot ?? workspaceRootFor(database, settings.workspaceRoot),
    };
  };
  return build;
}

/**
 * What the baseline researcher searches and fetches: with no search provider
 * configured (or ARIADNE_SEARCH=corpus, or anthropic, whose search runs only
 * inside an Anthropic model's calls), the corpus folder, served on loopback
 * and searched over its pages, PDFs and data files; with SearXNG or Brave
 * configured, null, and the run gets the real web tools as a model's would.
 */
async function baselineCorpus(settings: HostSettings, corpusDir: string | undefined) {
  const provider = chooseSearchProvider(settings.search ?? {}).provider;
  return provider === null || provider === "corpus" || provider === "anthropic" ? researchCorpus(corpusDir ?? settings.corpusDir) : null;
}
