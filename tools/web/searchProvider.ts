import type { ServerWebSearch } from "../../models/types.ts";
import { type AnthropicSearchSettings, anthropicSearchBackend, anthropicSearchOf } from "./anthropicSearch.ts";
import type { FetchLimits } from "./fetchLimited.ts";
import { BRAVE_API_URL, braveSearchBackend } from "./braveSearch.ts";
import { searxngSearchBackend } from "./searxngSearch.ts";
import type { SearchBackend } from "./searchBackend.ts";

/**
 * The providers web_search can use; `anthropic` is Anthropic's server-side
 * search, run inside the model's calls (chosen only by ARIADNE_SEARCH);
 * `corpus` is the local index of the shared corpus (offline and tests).
 */
export const SEARCH_PROVIDERS = ["searxng", "brave", "anthropic", "corpus"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** The search variables as the environment has them (read once by cli/config.ts). */
export interface SearchSettings extends AnthropicSearchSettings {
  ARIADNE_SEARCH?: string;
  ARIADNE_SEARXNG_URL?: string;
  BRAVE_SEARCH_API_KEY?: string;
  ARIADNE_BRAVE_URL?: string;
  /** ANTHROPIC_API_KEY is set: Anthropic's server-side search has a model to run in. */
  anthropicKeySet?: boolean;
}

/** Which provider a host searches with, and the sentence a run starts with to say so (with anthropic, the server tool's options). */
export type SearchChoice =
  | { provider: Exclude<SearchProviderName, "anthropic">; says: string }
  | { provider: "anthropic"; says: string; tool: ServerWebSearch }
  | { provider: null; says: string }
  | { provider: null; problem: string; says: string };

/**
 * Picks the one provider: ARIADNE_SEARCH when set (it must name a configured
 * one), else the one configured, else SearXNG before Brave when both are.
 * Pure; a wrong setting is a `problem` the CLI turns into a one-line error.
 */
export function chooseSearchProvider(s: SearchSettings): SearchChoice {
  const configured: ("searxng" | "brave")[] = [...(s.ARIADNE_SEARXNG_URL ? (["searxng"] as const) : []), ...(s.BRAVE_SEARCH_API_KEY ? (["brave"] as const) : [])];
  const asked = s.ARIADNE_SEARCH?.toLowerCase();
  if (asked !== undefined) {
    if (!(SEARCH_PROVIDERS as readonly string[]).includes(asked)) {
      return { provider: null, problem: `ARIADNE_SEARCH=${s.ARIADNE_SEARCH} names no search provider; use one of ${SEARCH_PROVIDERS.join(", ")}`, says: "" };
    }
    const name = asked as SearchProviderName;
    if (name === "searxng" && !s.ARIADNE_SEARXNG_URL) return { provider: null, problem: "ARIADNE_SEARCH=searxng needs ARIADNE_SEARXNG_URL, the SearXNG instance's base URL", says: "" };
    if (name === "brave" && !s.BRAVE_SEARCH_API_KEY) return { provider: null, problem: "ARIADNE_SEARCH=brave needs BRAVE_SEARCH_API_KEY", says: "" };
    return name === "anthropic" ? chooseAnthropic(s) : { provider: name, says: describe(name, s) };
  }
  const [first] = configured;
  if (!first) return { provider: null, says: "web search: none configured (set ARIADNE_SEARXNG_URL to a SearXNG instance, or BRAVE_SEARCH_API_KEY); web_search will refuse, web_fetch reads the URLs in the question" };
  const others = configured.length > 1 ? ` (also configured: ${configured.slice(1).join(", ")}; ARIADNE_SEARCH picks one)` : "";
  return { provider: first, says: describe(first, s) + others };
}

/** Anthropic's server-side search: it needs the Anthropic model (its searches run in the model's calls) and well-formed options. */
function chooseAnthropic(s: SearchSettings): SearchChoice {
  if (!s.anthropicKeySet) return { provider: null, problem: "ARIADNE_SEARCH=anthropic needs ANTHROPIC_API_KEY: Anthropic's web search runs inside the Anthropic model's calls", says: "" };
  const options = anthropicSearchOf(s);
  if ("problem" in options) return { provider: null, problem: options.problem, says: "" };
  const { tool } = options;
  const scope = tool.allowed_domains ? `, only ${tool.allowed_domains.join(", ")}` : tool.blocked_domains ? `, never ${tool.blocked_domains.join(", ")}` : "";
  return {
    provider: "anthropic",
    tool,
    says: `web search: Anthropic's server-side web search (ARIADNE_SEARCH=anthropic; at most ${tool.max_uses} searches per model call${scope}; billed per search)`,
  };
}

function describe(name: Exclude<SearchProviderName, "anthropic">, s: SearchSettings): string {
  if (name === "searxng") return `web search: SearXNG at ${s.ARIADNE_SEARXNG_URL} (ARIADNE_SEARXNG_URL)`;
  if (name === "brave") return `web search: Brave Search API at ${s.ARIADNE_BRAVE_URL ?? BRAVE_API_URL} (BRAVE_SEARCH_API_KEY)`;
  return "web search: the local index of the shared corpus (ARIADNE_SEARCH=corpus)";
}

/** The backend of a configured API provider, reached through the web tools' fetch path and address policy (anthropic's runs in model calls only); null for none or corpus. */
export function searchBackendOf(choice: SearchChoice, s: SearchSettings, limits: FetchLimits): SearchBackend | null {
  if (choice.provider === "searxng") return searxngSearchBackend(s.ARIADNE_SEARXNG_URL!, limits);
  if (choice.provider === "brave") return braveSearchBackend(s.BRAVE_SEARCH_API_KEY!, { baseUrl: s.ARIADNE_BRAVE_URL, limits });
  if (choice.provider === "anthropic") return anthropicSearchBackend();
  return null;
}
