import { ToolRegistry, type WebToolOptions, createCorpusTools, createWebTools } from "../tools/index.ts";

/**
 * The tools every run is hosted with (by `ariadne run`, `ariadne worker` and the
 * HTTP server's worker): the demo corpus tools, web_search and web_fetch.
 * Reading a transcript back rebuilds each request with the same tool specs, so
 * hosts and readers must share this one list; `web` configures how the web
 * tools reach the web (fetch, URL map, limits, search backend), never their specs.
 */
export const runTools = (web: WebToolOptions = {}): ToolRegistry => new ToolRegistry().register(...createCorpusTools(), ...createWebTools(web));
