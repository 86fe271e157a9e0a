import {
  type ComputeOptions,
  ToolRegistry,
  type WebToolOptions,
  createComputeTools,
  DEMO_TOOLS,
  createCorpusTools,
  createDocumentTools,
  createWebTools,
  createWorkspaceTools,
} from "../../tools/index.ts";
import { type CheckerToolDeps, createCheckerTools } from "../check/checkerTools.ts";

/** How the hosted tools reach the outside (never their specs): the web tools' fetch and map, compute's sandbox. */
export interface RunToolOptions {
  web?: WebToolOptions;
  compute?: ComputeOptions;
  /** The run's log and source readers, for the Checker's tools; absent, they keep their specs and refuse to run. */
  checker?: CheckerToolDeps;
}

/**
 * The tools every run is hosted with (by `ariadne run`, `ariadne worker` and the
 * HTTP server's worker): the demo corpus tools, web_search and web_fetch,
 * document_read, the workspace tools (read_file, write_file, list_files,
 * publish_artifact), compute and the Checker's check tools (held by the Checker only). Reading a transcript back rebuilds each request
 * with the same tool specs, so hosts and readers must share this one list; the
 * options configure how the tools reach the world, never what the model is shown.
 */
export const runTools = (options: RunToolOptions = {}): ToolRegistry =>
  new ToolRegistry().register(
    ...createCorpusTools(),
    ...createWebTools(options.web),
    ...createDocumentTools(),
    ...createWorkspaceTools(),
    ...createComputeTools(options.compute),
    ...createCheckerTools(options.checker),
  );

/**
 * The tools a real question's run may grant: every hosted tool but the demo
 * corpus tools (tools/demo/), which only the offline scenarios are offered.
 * `ariadne tools list` shows these.
 */
export const realToolNames = (registry: ToolRegistry): string[] => registry.names().filter((n) => !DEMO_TOOLS.includes(n));
