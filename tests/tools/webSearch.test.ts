import { test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryBlobStore, sha256Hex } from "../../sources/index.ts";
import { type SearchBackend, corpusSearchBackend, createWebSearchTool } from "../../tools/index.ts";
import { corpusDir } from "../support/corpus.ts";

const context = () => ({
  runId: "run",
  executorId: "exec",
  signal: new AbortController().signal,
  idempotencyKey: "key",
  blobs: createMemoryBlobStore(),
  now: () => new Date("2026-12-01T12:00:00.000Z"),
});

test("web_search over the corpus index returns titles, corpus URLs and snippets, kept as a search_results source; its URLs are links", async () => {
  const tool = createWebSearchTool(corpusSearchBackend(corpusDir()));
  const ctx = context();
  const result = await tool.runSanitized({ query: "Mozilla Foundation Firefox", limit: 5 }, ctx);
  const list = JSON.parse(result.output.split("\n").slice(2, -1).join("\n")) as { results: { title: string; url: string; snippet: string }[] };
  assert.ok(list.results.length > 0 && list.results.length <= 5);
  assert.ok(list.results.some((r) => r.url === "https://pages.corpus.test/wikipedia/" && /Mozilla/.test(r.title)));
  assert.ok(list.results.every((r) => r.url.startsWith("https://pages.corpus.test/") && r.snippet.length > 0));
  assert.deepEqual(result.links, list.results.map((r) => r.url));
  const [source] = result.sources!;
  assert.equal(source.kind, "search_results");
  assert.equal(source.url, "search:corpus?q=Mozilla%20Foundation%20Firefox");
  const stored = await ctx.blobs.get(source.rawSha256);
  assert.equal(sha256Hex(stored!), source.rawSha256);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stored!)).results, list.results);
  assert.match(result.output, /untrusted content/);
});

test("web_search says what to do when nothing matches, and when no backend is configured", async () => {
  const empty: SearchBackend = { name: "empty", search: async () => ({ hits: [] }) };
  const none = await createWebSearchTool(empty).runSanitized({ query: "zzz" }, context());
  assert.match(none.output, /No results for "zzz"\. Try other words/);
  assert.deepEqual(none.links, []);
  await assert.rejects(createWebSearchTool(undefined).run({ query: "x" }, context()), /no search provider configured on this host \(set ARIADNE_SEARXNG_URL/);
});
