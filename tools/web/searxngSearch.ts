import { ToolError } from "../toolErrors.ts";
import type { FetchLimits } from "./fetchLimited.ts";
import { fetchSearchJson } from "./fetchSearchJson.ts";
import type { SearchBackend, SearchHit } from "./searchBackend.ts";

/** The parts of SearXNG's JSON answer (`/search?format=json`) web_search reads. */
interface SearxngAnswer {
  results?: { url?: unknown; title?: unknown; content?: unknown }[];
  /** Engines that did not answer: [name, reason] pairs. */
  unresponsive_engines?: unknown[];
}

/**
 * A SearXNG instance (ARIADNE_SEARXNG_URL): `GET <base>/search?q=…&format=json`
 * (the instance must allow the json format in its settings.yml). Engines that
 * did not answer are reported as a note with the results.
 */
export function searxngSearchBackend(baseUrl: string, limits: FetchLimits = {}): SearchBackend {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    name: "searxng",
    async search(query, limit, signal) {
      const url = `${base}/search?${new URLSearchParams({ q: query, format: "json" })}`;
      const { json, raw, retried } = await fetchSearchJson(url, limits, { provider: "SearXNG", variable: "ARIADNE_SEARXNG_URL" }, signal);
      const answer = json as SearxngAnswer;
      if (!answer || typeof answer !== "object" || !Array.isArray(answer.results)) {
        throw new ToolError("SearXNG answered JSON without a results list; the instance is misconfigured or is not SearXNG. Report the gap.");
      }
      const hits = answer.results.flatMap((r): SearchHit[] =>
        typeof r?.url === "string" && /^https?:\/\//i.test(r.url) ? [{ url: r.url, title: String(r.title ?? r.url), snippet: String(r.content ?? "") }] : [],
      );
      const notes: string[] = [];
      const silent = (answer.unresponsive_engines ?? []).map((e) => (Array.isArray(e) ? `${e[0]} (${e[1]})` : String(e)));
      if (silent.length) notes.push(`engines that did not answer: ${silent.join(", ")}; results may be fewer than usual.`);
      if (retried) notes.push("SearXNG asked to wait once; the search was retried.");
      return { hits: hits.slice(0, limit), raw, notes };
    },
  };
}
