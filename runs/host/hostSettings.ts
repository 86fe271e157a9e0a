import type { ModelSettings } from "../../models/index.ts";
import type { ComputeLimits, ComputeOptions, SearchSettings } from "../../tools/index.ts";

/** What a host is configured with (cli/config.ts reads it once from the environment). */
export interface HostSettings {
  /** The configured model, if any (ANTHROPIC_API_KEY …, ARIADNE_MODEL_*). */
  model?: ModelSettings;
  /** Delay of each scripted reply (ARIADNE_SCRIPTED_LATENCY_MS); a run's own tag wins. */
  scriptedLatencyMs?: number;
  /** How compute runs code: the OpenBLAS variables passed into its sandbox (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE), and its limits (ARIADNE_COMPUTE_*). */
  compute?: Pick<ComputeOptions, "passEnv"> & ComputeLimits;
  /** Where executors' working folders live (ARIADNE_WORKSPACES); default beside the store (runs/host/workspaceRootFor.ts). */
  workspaceRoot?: string;
  /** Where a real question's web_search looks (ARIADNE_SEARCH, ARIADNE_SEARXNG_URL, BRAVE_SEARCH_API_KEY, ARIADNE_BRAVE_URL). */
  search?: SearchSettings;
  /** How the web tools reach the web: contact, address policy, per-host interval (ARIADNE_CONTACT, ARIADNE_ALLOW_*). */
  web?: { contact?: string; allowLoopback?: boolean; allowPrivate?: boolean; hostIntervalMs?: number };
  /** The corpus offline runs fetch and search (ARIADNE_CORPUS_DIR); default the repository's corpus/. */
  corpusDir?: string;
}
