import type { FetchLimits } from "./fetchLimited.ts";
import { BRAVE_API_URL, braveSearchBackend } from "./braveSearch.ts";
import { searxngSearchBackend } from "./searxngSearch.ts";
import type { SearchBackend } from "./searchBackend.ts";

/** The providers web_search can use; `corpus` is the local index of the shared corpus (offline and tests). */
export const SEARCH_PROVIDERS = ["searxng", "brave", "corpus"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** The search variables as the environment has them (read once by cli/config.ts). */
export interface SearchSettings {
  ARIADNE_SEARCH?: string;
  ARIADNE_SEARXNG_URL?: string;
  BRAVE_SEARCH_API_KEY?: string;
  ARIADNE_BRAVE_URL?: string;
}

/** Which provider a host searches with, and the sentence a run starts with to say so. */
export type SearchChoice =
  | { provider: SearchProviderName; says: string }
  | { provider: null; says: string }
  | { provider: null; problem: string; says: string };

/**
 * Picks the one provider: ARIADNE_SEARCH when set (it must name a configured
 * one), else the one configured, else SearXNG before Brave when both are.
 * Pure; a wrong setting is a `problem` the CLI turns into a one-line error.
 */
export function chooseSearchProvider(s: SearchSettings): SearchChoice {
  const configured: SearchProviderName[] = [...(s.ARIADNE_SEARXNG_URL ? (["searxng"] as const) : []), ...(s.BRAVE_SEARCH_API_KEY ? (["brave"] as const) : [])];
  const asked = s.ARIADNE_SEARCH?.toLowerCase();
  if (asked !== undefined) {
    if (asked === "anthropic") {
      return { provider: null, problem: "ARIADNE_SEARCH=anthropic: Anthropic's server-side web search tool is not supported yet (its results could not be stored as sources); use searxng or brave", says: "" };
    }
    if (!(SEARCH_PROVIDERS as readonly string[]).includes(asked)) {
      return { provider: null, problem: `ARIADNE_SEARCH=${s.ARIADNE_SEARCH} names no search provider; use one of ${SEARCH_PROVIDERS.join(", ")}`, says: "" };
    }
    const name = asked as SearchProviderName;
    if (name === "searxng" && !s.ARIADNE_SEARXNG_URL) return { provider: null, problem: "ARIADNE_SEARCH=searxng needs ARIADNE_SEARXNG_URL, the SearXNG instance's base URL", says: "" };
    if (name === "brave" && !s.BRAVE_SEARCH_API_KEY) return { provider: null, problem: "ARIADNE_SEARCH=brave needs BRAVE_SEARCH_API_KEY", says: "" };
    return { provider: name, says: describe(name, s) };
  }
  const [first] = configured;
  if (!first) return { provider: null, says: "web search: none configured (set ARIADNE_SEARXNG_URL to a SearXNG instance, or BRAVE_SEARCH_API_KEY); web_search will refuse, web_fetch reads the URLs in the question" };
  const others = configured.length > 1 ? ` (also configured: ${configured.slice(1).join(", ")}; ARIADNE_SEARCH picks one)` : "";
  return { provider: first, says: describe(first, s) + others };
}

function describe(name: SearchProviderName, s: SearchSettings): string {
  if (name === "searxng") return `web search: SearXNG at ${s.ARIADNE_SEARXNG_URL} (ARIADNE_SEARXNG_URL)`;
  if (name === "brave") return `web search: Brave Search API at ${s.ARIADNE_BRAVE_URL ?? BRAVE_API_URL} (BRAVE_SEARCH_API_KEY)`;
  return "web search: the local index of the shared corpus (ARIADNE_SEARCH=corpus)";
}

/** The backend of a configured API provider, reached through the web tools' fetch path and address policy; null for none or corpus. */
export function searchBackendOf(choice: SearchChoice, s: SearchSettings, limits: FetchLimits): SearchBackend | null {
  if (choice.provider === "searxng") return searxngSearchBackend(s.ARIADNE_SEARXNG_URL!, limits);
  if (choice.provider === "brave") return braveSearchBackend(s.BRAVE_SEARCH_API_KEY!, { baseUrl: s.ARIADNE_BRAVE_URL, limits });
  return null;
}
