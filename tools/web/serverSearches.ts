import type { AssistantBlock, WebSearchToolResultBlock } from "../../models/types.ts";
import type { BlobStore, SourceRecord } from "../../sources/types.ts";

/** One server-side search of a turn, as the `turn` event records it (events/catalogue.ts). */
export interface ServerSearch {
  toolUseId: string;
  query: string;
  source?: SourceRecord;
  error?: { code: string; note: string };
}

/** What each of Anthropic's web search error codes means for a run, and what changes it. */
const ERROR_NOTES: Record<string, string> = {
  max_uses_exceeded: "the model call's limit on searches was reached (ARIADNE_ANTHROPIC_SEARCH_MAX_USES raises it)",
  too_many_requests: "Anthropic is rate limiting web searches; later turns may search again",
  unavailable: "Anthropic's web search was unavailable; later turns may search again",
  invalid_tool_input: "the model's search input was invalid",
  query_too_long: "the query was longer than Anthropic's web search accepts",
  request_too_large: "the search request was too large",
};

/**
 * The server-side searches of a model's response (ARIADNE_SEARCH=anthropic),
 * kept as the client web_search keeps its own (tools/web/webSearchTool.ts): the
 * result block as it came is the raw `search_results` blob, the hits' titles
 * and URLs its text; discovery only, never cited. A failed search is recorded
 * with a note saying what its code means. Nothing to do (and nothing read)
 * for a response without server searches.
 */
export async function storeServerSearches(content: readonly AssistantBlock[], blobs: BlobStore | undefined, now: Date): Promise<ServerSearch[]> {
  const results = content.filter((b): b is WebSearchToolResultBlock => b.type === "web_search_tool_result");
  if (results.length === 0) return [];
  const queries = new Map(content.flatMap((b) => (b.type === "server_tool_use" ? [[b.id, queryOf(b.input)] as const] : [])));
  const searches: ServerSearch[] = [];
  for (const block of results) {
    const query = queries.get(block.tool_use_id) ?? "";
    if (!Array.isArray(block.content)) {
      const code = block.content.error_code;
      searches.push({ toolUseId: block.tool_use_id, query, error: { code, note: `web search "${query}" failed (${code}): ${ERROR_NOTES[code] ?? "Anthropic's web search reported an error"}.` } });
      continue;
    }
    if (!blobs) {
      searches.push({ toolUseId: block.tool_use_id, query, error: { code: "not_stored", note: "the host lent no blob store, so the result list was not kept as a source" } });
      continue;
    }
    const encoder = new TextEncoder();
    const raw = encoder.encode(JSON.stringify(block));
    const text = encoder.encode(JSON.stringify({ query, results: block.content.map((r) => ({ title: r.title, url: r.url, page_age: r.page_age })) }));
    const [rawSha256, textSha256] = [await blobs.put(raw), await blobs.put(text)];
    const source: SourceRecord = {
      kind: "search_results",
      url: `search:anthropic?q=${encodeURIComponent(query)}`,
      contentType: "application/json",
      fetchedAt: now.toISOString(),
      rawSha256,
      textSha256,
      bytes: raw.byteLength,
    };
    searches.push({ toolUseId: block.tool_use_id, query, source });
  }
  return searches;
}

const queryOf = (input: unknown): string => {
  const query = (input as { query?: unknown } | null)?.query;
  return typeof query === "string" ? query : JSON.stringify(input);
};
