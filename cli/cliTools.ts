import { ToolRegistry, createCorpusTools } from "../tools/index.ts";

/**
 * The tools `ariadne` runs with. Reading a transcript back rebuilds each request
 * with the same tool specs, so runs and readers must share this one list.
 */
export const cliTools = (): ToolRegistry => new ToolRegistry().register(...createCorpusTools());
