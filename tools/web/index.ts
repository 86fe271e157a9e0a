import type { Tool } from "../defineTool.ts";
import type { SearchBackend } from "./searchBackend.ts";
import { type WebFetchOptions, createWebFetchTool } from "./webFetchTool.ts";
import { createWebSearchTool } from "./webSearchTool.ts";

export interface WebToolOptions extends WebFetchOptions {
  /** Where web_search looks; without one, web_search says none is configured. */
  search?: SearchBackend;
}

/** web_search and web_fetch, configured alike for a host (the fetch, URL map, limits, address policy, search backend). */
export function createWebTools(options: WebToolOptions = {}): Tool[] {
  const { search, ...fetchOptions } = options;
  return [createWebSearchTool(search), createWebFetchTool(fetchOptions)];
}

export { addressKind, canonicalHost, refusedAddress, refusedIp, resolveChecked, type AddressPolicy } from "./checkAddress.ts";
export { fetchPinned } from "./fetchPinned.ts";
export { classifyContent, type ContentClass } from "./classifyContent.ts";
export { readManifest, type ManifestEntry } from "./corpusManifest.ts";
export { corpusSearchBackend, pagesSearchBackend } from "./corpusSearch.ts";
export { corpusFilesSearchBackend } from "./corpusFilesSearch.ts";
export { CORPUS_HOSTS, type CorpusMount, type CorpusServeOptions, type CorpusServer, corpusMounts, corpusUrlMap, serveCorpus } from "./corpusServer.ts";
export { extractReadable, type ReadablePage } from "./extractReadable.ts";
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS, type FetchLimits, fetchLimited } from "./fetchLimited.ts";
export { normalizeUrl, requestUrl } from "./normalizeUrl.ts";
export { PAGE_CHARS, renderPage } from "./renderPage.ts";
export type { SearchBackend, SearchHit as WebSearchHit, SearchResults } from "./searchBackend.ts";
export { type WebFetchOptions, createWebFetchTool } from "./webFetchTool.ts";
export { createWebSearchTool } from "./webSearchTool.ts";
export { BRAVE_API_URL, braveSearchBackend } from "./braveSearch.ts";
export { fetchSearchJson, retryAfterMs } from "./fetchSearchJson.ts";
export { searxngSearchBackend } from "./searxngSearch.ts";
export { SEARCH_PROVIDERS, type SearchChoice, type SearchProviderName, type SearchSettings, chooseSearchProvider, searchBackendOf } from "./searchProvider.ts";
export { NO_SEARCH_PROVIDER } from "./webSearchTool.ts";
export { userAgentOf } from "./fetchLimited.ts";
export { type AnthropicSearchSettings, DEFAULT_SEARCH_MAX_USES, anthropicSearchOf } from "./anthropicSearch.ts";
export { type ServerSearch, storeServerSearches } from "./serverSearches.ts";
