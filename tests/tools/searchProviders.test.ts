import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createMemoryBlobStore } from "../../sources/index.ts";
import { type SearchBackend, braveSearchBackend, chooseSearchProvider, createWebSearchTool, retryAfterMs, searchBackendOf, searxngSearchBackend } from "../../tools/index.ts";
import { type ProviderAnswer, type SearchProviderServer, startSearchProviderServer } from "../support/searchProviderServer.ts";

// Answers written from the providers' public documentation of their JSON (SearXNG's /search?format=json, Brave's /res/v1/web/search).
const SEARXNG = JSON.parse(readFileSync(new URL("./searchAnswers/searxng.json", import.meta.url), "utf8"));
const BRAVE = JSON.parse(readFileSync(new URL("./searchAnswers/brave.json", import.meta.url), "utf8"));
const VANGUARD = "https://www.vanguard.co.uk/professional/product/etf/equity/9679/ftse-all-world-ucits-etf-usd-distributing";

const context = () => ({ runId: "run", executorId: "exec", signal: new AbortController().signal, idempotencyKey: "key", blobs: createMemoryBlobStore(), now: () => new Date("2026-12-06T00:00:00Z") });
const loopback = { allowLoopback: true, timeoutMs: 1_500 };

let server: SearchProviderServer;
before(async () => {
  server = await startSearchProviderServer((_q, path) => ({ body: path === "/search" ? SEARXNG : BRAVE }));
});
after(() => server.close());

const providers: [string, () => SearchBackend][] = [
  ["SearXNG", () => searxngSearchBackend(`${server.origin}/`, loopback)],
  ["Brave", () => braveSearchBackend("brave-test-key", { baseUrl: server.origin, limits: loopback })],
];

describe("search providers on loopback", () => {
  test("SearXNG: GET /search?q=…&format=json; its results become hits, unresponsive engines a note, the raw answer the search_results blob", async () => {
    const tool = createWebSearchTool(searxngSearchBackend(server.origin, loopback));
    const ctx = context();
    const result = await tool.runSanitized({ query: "vanguard ftse all-world ongoing charge" }, ctx);
    const seen = server.requests.at(-1)!;
    assert.deepEqual([seen.path, seen.query.get("q"), seen.query.get("format")], ["/search", "vanguard ftse all-world ongoing charge", "json"]);
    assert.match(String(seen.headers["user-agent"]), /^Ariadne\//);
    // The ftp:// result is dropped: web_fetch reads http(s) only.
    assert.deepEqual(result.links, [VANGUARD, "https://www.justetf.com/en/etf-profile.html?isin=IE00B3RBWM25"]);
    assert.match(result.output, /Note: engines that did not answer: google \(timeout\), bing \(CAPTCHA\)/);
    assert.match(result.output, /A snippet is never evidence/);
    const [source] = result.sources!;
    assert.equal(source.kind, "search_results");
    assert.equal(source.url, "search:searxng?q=vanguard%20ftse%20all-world%20ongoing%20charge");
    assert.deepEqual(JSON.parse(new TextDecoder().decode((await ctx.blobs.get(source.rawSha256))!)), SEARXNG, "the raw blob is the provider's answer as it came");
    assert.notEqual(source.textSha256, source.rawSha256);
  });

  test("Brave: GET /res/v1/web/search with X-Subscription-Token; descriptions lose their <strong> marks", async () => {
    const tool = createWebSearchTool(braveSearchBackend("brave-test-key", { baseUrl: server.origin, limits: loopback }));
    const result = await tool.runSanitized({ query: "vanguard ftse all-world ongoing charge", limit: 5 }, context());
    const seen = server.requests.at(-1)!;
    assert.deepEqual([seen.path, seen.query.get("q"), seen.query.get("count"), seen.headers["x-subscription-token"]], ["/res/v1/web/search", "vanguard ftse all-world ongoing charge", "5", "brave-test-key"]);
    assert.deepEqual(result.links, [VANGUARD, "https://www.justetf.com/en/etf-profile.html?isin=IE00B3RBWM25"]);
    assert.match(result.output, /"snippet":"Ongoing charges figure 0.19%/);
    assert.equal(result.sources![0].url, "search:brave?q=vanguard%20ftse%20all-world%20ongoing%20charge");
  });

  test("the provider's address goes through the web tools' address policy: loopback is refused unless the host allows it", async () => {
    await assert.rejects(searxngSearchBackend(server.origin, {}).search("x", 5), /loopback addresses are not fetched/);
  });

  for (const [name, backend] of providers) {
    const failures: [string, ProviderAnswer[], RegExp][] = [
      ["401", [{ status: 401, body: { message: "unauthorized" } }], /HTTP 401\): check (ARIADNE_SEARXNG_URL|BRAVE_SEARCH_API_KEY)/],
      ["403", [{ status: 403, body: {} }], /HTTP 403\): check .* what the key's plan allows/],
      ["429 with a long Retry-After", [{ status: 429, headers: { "retry-after": "120" } }], /rate limiting this host \(HTTP 429\); try web_search again in 120 s/],
      ["429 twice", [{ status: 429, headers: { "retry-after": "0" } }, { status: 429, headers: { "retry-after": "0" } }], /HTTP 429, again after one retry/],
      ["5xx twice", [{ status: 503 }, { status: 502 }], /failed \(HTTP 502, again after one retry\)/],
      ["malformed JSON", [{ raw: "<html>not json" }], /malformed JSON/],
      ["a timeout", [{ delayMs: 3_000, body: {} }], /timed out after 2 s/],
    ];
    for (const [what, answers, message] of failures) {
      test(`${name}: ${what} is a clear tool error`, async () => {
        server.enqueue(...answers);
        await assert.rejects(createWebSearchTool(backend()).run({ query: "ongoing charge" }, context()), message);
      });
    }

    test(`${name}: a 429 with a short Retry-After is retried once, and the result says so`, async () => {
      const before = server.requests.length;
      server.enqueue({ status: 429, headers: { "retry-after": "0" } });
      const result = await createWebSearchTool(backend()).runSanitized({ query: "ongoing charge" }, context());
      assert.equal(server.requests.length - before, 2);
      assert.match(result.output, /asked to wait once; the search was retried/);
      assert.equal(result.links!.length, 2);
    });

    test(`${name}: an empty result list is no results, with what to try next`, async () => {
      server.enqueue({ body: name === "SearXNG" ? { ...SEARXNG, results: [], unresponsive_engines: [] } : { type: "search", query: { original: "zzz" } } });
      const result = await createWebSearchTool(backend()).runSanitized({ query: "zzz qqq" }, context());
      assert.match(result.output, /^No results for "zzz qqq"\. Try other words/);
      assert.deepEqual(result.links, []);
    });
  }
});

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(retryAfterMs("3"), 3_000);
  assert.equal(retryAfterMs("Sun, 06 Dec 2026 00:00:10 GMT", Date.parse("2026-12-06T00:00:00Z")), 10_000);
  assert.equal(retryAfterMs("soon"), null);
  assert.equal(retryAfterMs(null), null);
});

test("the provider is chosen once: ARIADNE_SEARCH picks among the configured, a wrong setting is a problem naming the variable", () => {
  assert.equal(chooseSearchProvider({}).provider, null);
  assert.match(chooseSearchProvider({}).says, /none configured \(set ARIADNE_SEARXNG_URL .* or BRAVE_SEARCH_API_KEY\)/);
  assert.equal(chooseSearchProvider({ BRAVE_SEARCH_API_KEY: "k" }).provider, "brave");
  const both = chooseSearchProvider({ BRAVE_SEARCH_API_KEY: "k", ARIADNE_SEARXNG_URL: "http://s" });
  assert.equal(both.provider, "searxng");
  assert.match(both.says, /also configured: brave; ARIADNE_SEARCH picks one/);
  assert.equal(chooseSearchProvider({ BRAVE_SEARCH_API_KEY: "k", ARIADNE_SEARXNG_URL: "http://s", ARIADNE_SEARCH: "brave" }).provider, "brave");
  assert.equal(chooseSearchProvider({ ARIADNE_SEARCH: "corpus" }).provider, "corpus");
  assert.match((chooseSearchProvider({ ARIADNE_SEARCH: "google" }) as { problem: string }).problem, /ARIADNE_SEARCH=google names no search provider; use one of searxng, brave, anthropic, corpus/);
  assert.match((chooseSearchProvider({ ARIADNE_SEARCH: "searxng" }) as { problem: string }).problem, /needs ARIADNE_SEARXNG_URL/);
});

test("ARIADNE_SEARCH=anthropic: Anthropic's server tool with the options of ARIADNE_ANTHROPIC_SEARCH_*, or a problem naming the variable", () => {
  const problem = (s: Parameters<typeof chooseSearchProvider>[0]) => (chooseSearchProvider(s) as { problem?: string }).problem;
  assert.equal(problem({ ARIADNE_SEARCH: "anthropic" }), "ARIADNE_SEARCH=anthropic needs ANTHROPIC_API_KEY: Anthropic's web search runs inside the Anthropic model's calls");
  const chosen = chooseSearchProvider({ ARIADNE_SEARCH: "anthropic", anthropicKeySet: true });
  assert.deepEqual(chosen, {
    provider: "anthropic",
    tool: { type: "web_search_20250305", max_uses: 5 },
    says: "web search: Anthropic's server-side web search (ARIADNE_SEARCH=anthropic; at most 5 searches per model call; billed per search)",
  });
  const scoped = chooseSearchProvider({
    ARIADNE_SEARCH: "anthropic",
    anthropicKeySet: true,
    ARIADNE_ANTHROPIC_SEARCH_MAX_USES: "3",
    ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS: "vanguard.co.uk, ft.com",
    ARIADNE_ANTHROPIC_SEARCH_LOCATION: "country=GB,city=London,timezone=Europe/London",
  });
  assert.deepEqual((scoped as { tool: unknown }).tool, {
    type: "web_search_20250305",
    max_uses: 3,
    allowed_domains: ["vanguard.co.uk", "ft.com"],
    user_location: { type: "approximate", country: "GB", city: "London", timezone: "Europe/London" },
  });
  assert.match(scoped.says, /at most 3 searches per model call, only vanguard\.co\.uk, ft\.com/);
  // Searches are never chosen without being asked for: a key alone keeps the other providers' order.
  assert.equal(chooseSearchProvider({ anthropicKeySet: true }).provider, null);
  const key = { ARIADNE_SEARCH: "anthropic", anthropicKeySet: true };
  assert.match(problem({ ...key, ARIADNE_ANTHROPIC_SEARCH_MAX_USES: "0" })!, /^ARIADNE_ANTHROPIC_SEARCH_MAX_USES must be a whole number from 1 to 50/);
  assert.match(problem({ ...key, ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS: "a.com", ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS: "b.com" })!, /cannot both be set/);
  assert.match(problem({ ...key, ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS: "https://b.com" })!, /"https:\/\/b\.com" is not a domain/);
  assert.match(problem({ ...key, ARIADNE_ANTHROPIC_SEARCH_LOCATION: "planet=Mars" })!, /^ARIADNE_ANTHROPIC_SEARCH_LOCATION: "planet=Mars" is not one of city=…/);
  assert.match(problem({ ...key, ARIADNE_ANTHROPIC_SEARCH_LOCATION: "country=Britain" })!, /two-letter ISO code/);
});

test("with ARIADNE_SEARCH=anthropic the host's own web_search says the search runs only inside an Anthropic model call", async () => {
  const choice = chooseSearchProvider({ ARIADNE_SEARCH: "anthropic", anthropicKeySet: true });
  const backend = searchBackendOf(choice, {}, loopback)!;
  await assert.rejects(createWebSearchTool(backend).run({ query: "ongoing charge" }, context()), /Anthropic's server-side search on this host \(ARIADNE_SEARCH=anthropic\): it runs only inside a call to an Anthropic model/);
});
