import { test } from "node:test";
import assert from "node:assert/strict";
import { ModelCallError } from "../../models/modelCallError.ts";
import { type WireBlock, reply, scriptedSearchResult } from "../../models/testing/index.ts";
import type { AssistantBlock, ModelRequest, ServerWebSearch, ToolSpec } from "../../models/types.ts";
import { modelAt, rejection, request, withWireServer, within } from "./fixtures.ts";

/**
 * Anthropic's server-side web search through the real SDK, against the local
 * wire server replaying search blocks a test wrote (it runs no search: its
 * results' encrypted_content says it is scripted).
 */
const WEB_SEARCH: ServerWebSearch = { type: "web_search_20250305", max_uses: 5, blocked_domains: ["spam.example"] };
const CLIENT_SEARCH: ToolSpec = { name: "web_search", description: "Search the web.", input_schema: { type: "object", properties: { query: { type: "string" } } } };
const FETCH: ToolSpec = { name: "web_fetch", description: "Fetch a page.", input_schema: { type: "object", properties: { url: { type: "string" } } } };
const PAGE = "https://www.vanguard.co.uk/vwrl";
const HITS = [scriptedSearchResult(PAGE, "Vanguard FTSE All-World", "2 days ago"), scriptedSearchResult("https://www.ft.com/vwrl", "FT: VWRL")];
const CITATION = { type: "web_search_result_location", url: PAGE, title: "Vanguard FTSE All-World", encrypted_index: "scripted-index", cited_text: "Ongoing charge 0.19%" };

/** A turn that searched server-side, read the hits, and asks for a page. */
const SEARCHED: WireBlock[] = [
  { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "VWRL ongoing charge" } },
  { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: HITS },
  { type: "text", text: "The fund page lists its fee.", citations: [CITATION] },
  { type: "tool_use", id: "toolu_fetch", name: "web_fetch", input: { url: PAGE } },
];

const searching = (overrides: Partial<ModelRequest> = {}) => request({ tools: [CLIENT_SEARCH, FETCH], ...overrides });

test("web_search goes out as Anthropic's server tool; its blocks come back whole, citations of encrypted content are left out, searches are counted", async () => {
  await withWireServer([reply(SEARCHED)], async (server) => {
    const response = await within(5_000, modelAt(server.url, { webSearch: WEB_SEARCH }).complete(searching()));
    const tools = server.requests[0]!.body!.tools as Record<string, unknown>[];
    assert.deepEqual(tools[0], { name: "web_search", type: "web_search_20250305", max_uses: 5, blocked_domains: ["spam.example"] }, "the server tool, not the client spec");
    assert.equal(tools[1]!.name, "web_fetch");
    assert.deepEqual(response.content, [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "VWRL ongoing charge" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: HITS },
      { type: "text", text: "The fund page lists its fee." },
      { type: "tool_use", id: "toolu_fetch", name: "web_fetch", input: { url: PAGE } },
    ]);
    assert.equal(response.stopReason, "tool_use");
    assert.equal(response.usage.webSearchRequests, 1);
  });
});

test("the history sends a server search back exactly as it came, and the wire server (as Anthropic) accepts it", async () => {
  await withWireServer([reply(SEARCHED), reply("Done.")], async (server) => {
    const model = modelAt(server.url, { webSearch: WEB_SEARCH });
    const first = await within(5_000, model.complete(searching()));
    const history: ModelRequest["messages"] = [
      { role: "user", content: "What does VWRL cost?" },
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_fetch", content: "Ongoing charge 0.19%" }] },
    ];
    const second = await within(5_000, model.complete(searching({ messages: history })));
    assert.equal(second.stopReason, "end_turn");
    const sent = (server.requests[1]!.body!.messages as { content: Record<string, unknown>[] }[])[1]!.content;
    assert.deepEqual(sent.slice(0, 2), [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "VWRL ongoing charge" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: HITS },
    ]);
    assert.deepEqual(sent[2], { type: "text", text: "The fund page lists its fee." });
  });
});

test("a history whose search lost its result is refused by the wire server, as by Anthropic", async () => {
  await withWireServer([reply("unused")], async (server) => {
    const broken: AssistantBlock[] = [{ type: "server_tool_use", id: "srvtoolu_9", name: "web_search", input: { query: "x" } }, { type: "text", text: "hm" }];
    const e = await within(5_000, rejection(modelAt(server.url, { webSearch: WEB_SEARCH, maxRetries: 0 }).complete(searching({ messages: [{ role: "user", content: "q" }, { role: "assistant", content: broken }, { role: "user", content: "go on" }] }))));
    assert.ok(e instanceof ModelCallError);
    assert.match(e.message, /server_tool_use srvtoolu_9 has no web_search_tool_result/);
  });
});

test("the run's search budget lowers max_uses for one call", async () => {
  await withWireServer([reply("ok")], async (server) => {
    await within(5_000, modelAt(server.url, { webSearch: WEB_SEARCH }).complete(searching(), { maxSearches: 2 }));
    assert.equal((server.requests[0]!.body!.tools as { max_uses?: number }[])[0]!.max_uses, 2);
  });
});

test("a failed search (max_uses_exceeded) is a result block the model reads, not a failed call", async () => {
  const failed: WireBlock[] = [
    { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: { query: "again" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } },
    { type: "text", text: "I cannot search more." },
  ];
  await withWireServer([reply(failed)], async (server) => {
    const response = await within(5_000, modelAt(server.url, { webSearch: WEB_SEARCH }).complete(searching()));
    assert.deepEqual(response.content[1], { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } });
    assert.equal(response.stopReason, "end_turn");
  });
});

test("a reply that broke after a search started says so and is not retried unseen (an overload mid-stream otherwise is)", async () => {
  const broken = { kind: "errorEvent" as const, reply: { content: SEARCHED }, afterEvents: 6, errorType: "overloaded_error", message: "Overloaded" };
  await withWireServer([broken, reply("retried")], async (server) => {
    const e = await within(5_000, rejection(modelAt(server.url, { webSearch: WEB_SEARCH }).complete(searching())));
    assert.ok(e instanceof ModelCallError);
    assert.equal(e.searchesLost, 1);
    assert.match(e.message, /the lost reply had started 1 web search on Anthropic's servers: billed, results lost/);
    assert.equal(server.requests.length, 1, "not retried inside the call");
  });
});

test("the wire server sends scripted search blocks only to a request offering the server tool", async () => {
  await withWireServer([reply(SEARCHED)], async (server) => {
    const e = await within(5_000, rejection(modelAt(server.url, { maxRetries: 0 }).complete(searching())));
    assert.match((e as Error).message, /searches server-side, but the request offers no web_search_\* server tool/);
  });
});
