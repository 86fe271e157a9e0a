/** One search hit: what a result list shows. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** Where web_search gets its results: a search API, or offline, a local index over the corpus. */
export interface SearchBackend {
  /** Names the backend in the recorded source's URL (`search:<name>?q=…`). */
  readonly name: string;
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]>;
}
