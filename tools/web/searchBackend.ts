/** One search hit: what a result list shows. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** What a search answered: its hits, the provider's own response as it came, and notes the result should carry. */
export interface SearchResults {
  hits: SearchHit[];
  /** The provider's raw response (JSON), stored as the `search_results` blob; absent: the hits themselves are stored. */
  raw?: Uint8Array;
  /** What the model should know beside the hits (engines that did not answer, a retry taken). */
  notes?: string[];
}

/**
 * Where web_search gets its results: a search API (SearXNG, Brave), or offline,
 * a local index over the corpus. Chosen once, from the configuration
 * (tools/web/searchProvider.ts). Discovery only: nothing is cited from a hit.
 */
export interface SearchBackend {
  /** Names the backend in the recorded source's URL (`search:<name>?q=…`). */
  readonly name: string;
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResults>;
}
