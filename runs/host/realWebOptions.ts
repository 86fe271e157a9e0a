import { type FetchLimits, type WebToolOptions, chooseSearchProvider, searchBackendOf, userAgentOf } from "../../tools/index.ts";
import type { HostSettings } from "./hostSettings.ts";
import { scenarioCorpus } from "./scenarioCorpus.ts";

/**
 * How a real question's web tools reach the web: the configured search
 * provider, a User-Agent with the host's contact, the address policy, and the
 * per-host pacing. ARIADNE_SEARCH=corpus searches the shared corpus's local
 * index and maps its hosts onto the local corpus server, as offline runs do.
 */
export async function realWebOptions(settings: Pick<HostSettings, "search" | "web">, corpusDir?: string): Promise<WebToolOptions> {
  const limits = realFetchLimits(settings);
  const search = settings.search ?? {};
  const choice = chooseSearchProvider(search);
  if (choice.provider === "corpus") {
    const corpus = await scenarioCorpus(corpusDir);
    return { ...limits, mapUrl: corpus.mapUrl, search: corpus.search };
  }
  return { ...limits, search: searchBackendOf(choice, search, limits) ?? undefined };
}

/** How the host reaches the open web: its address policy, a User-Agent with its contact, its per-host pacing. */
export function realFetchLimits(settings: Pick<HostSettings, "web">): FetchLimits {
  const web = settings.web ?? {};
  return { allowLoopback: web.allowLoopback, allowPrivate: web.allowPrivate, userAgent: userAgentOf(web.contact), hostIntervalMs: web.hostIntervalMs };
}
