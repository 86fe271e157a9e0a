import { ToolError } from "../toolErrors.ts";
import type { FetchLimits } from "./fetchLimited.ts";
import { fetchSearchJson } from "./fetchSearchJson.ts";
import type { SearchBackend, SearchHit } from "./searchBackend.ts";

/** Brave Search API's address; ARIADNE_BRAVE_URL overrides it (tests serve Brave-shaped answers on loopback). */
export const BRAVE_API_URL = "https://api.search.brave.com";

/** The parts of Brave's web search answer (`/res/v1/web/search`) web_search reads. */
interface BraveAnswer {
  web?: { results?: { url?: unknown; title?: unknown; description?: unknown }[] };
}

/**
 * The Brave Search API (BRAVE_SEARCH_API_KEY, sent as X-Subscription-Token):
 * `GET <base>/res/v1/web/search?q=…&count=N`. An answer with no `web` section
 * is no results (Brave leaves it out when nothing matched).
 */
export function braveSearchBackend(apiKey: string, options: { baseUrl?: string; limits?: FetchLimits } = {}): SearchBackend {
  const base = (options.baseUrl ?? BRAVE_API_URL).replace(/\/+$/, "");
  return {
    name: "brave",
    async search(query, limit, signal) {
      const url = `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(Math.min(limit, 20)) })}`;
      const { json, raw, retried } = await fetchSearchJson(
        url,
        options.limits ?? {},
        { provider: "Brave Search", variable: "BRAVE_SEARCH_API_KEY", headers: { "x-subscription-token": apiKey } },
        signal,
      );
      const answer = json as BraveAnswer;
      if (!answer || typeof answer !== "object" || (answer.web !== undefined && !Array.isArray(answer.web?.results))) {
        throw new ToolError("Brave Search answered JSON in a shape Ariadne does not read (no web.results list); report the gap.");
      }
      const hits = (answer.web?.results ?? []).flatMap((r): SearchHit[] =>
        typeof r?.url === "string" && /^https?:\/\//i.test(r.url) ? [{ url: r.url, title: String(r.title ?? r.url), snippet: stripTags(String(r.description ?? "")) }] : [],
      );
      return { hits: hits.slice(0, limit), raw, notes: retried ? ["Brave Search asked to wait once; the search was retried."] : [] };
    },
  };
}

/** Brave marks matched words with <strong>; the snippet is shown as text. */
const stripTags = (s: string) => s.replace(/<\/?strong>/g, "");
