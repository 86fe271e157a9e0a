import { ToolRegistry, createCorpusTools } from "../tools/index.ts";

/**
 * The tools every run is hosted with (by `ariadne run`, `ariadne worker` and the
 * HTTP server's worker). Reading a transcript back rebuilds each request with
 * the same tool specs, so hosts and readers must share this one list.
 */
export const runTools = (): ToolRegistry => new ToolRegistry().register(...createCorpusTools());
