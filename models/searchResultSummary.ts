import type { WebSearchToolResultBlock } from "./types.ts";

/** A server-side search's result in a line: its hits' URLs, or its error code (the encrypted content is never shown). */
export function searchResultSummary(b: WebSearchToolResultBlock): string {
  if (!Array.isArray(b.content)) return `search failed: ${b.content.error_code}`;
  return b.content.length ? `${b.content.length} results: ${b.content.map((r) => r.url).join(" ")}` : "no results";
}
