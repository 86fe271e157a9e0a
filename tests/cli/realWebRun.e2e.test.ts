import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { openStore } from "../../events/openStore.ts";
import { type AnthropicWireServer, type WireBehaviour, type WireRequestBody, httpError, reply, startAnthropicWireServer, systemTextOf } from "../../models/testing/index.ts";
import { projectClaims } from "../../projections/index.ts";
import { DEMO_TOOLS } from "../../tools/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { type SearchProviderServer, startSearchProviderServer } from "../support/searchProviderServer.ts";
import { type CliResult, type CliStore, ariadne, cliStore } from "./ariadneProcess.ts";

type Block = { type: string; id?: string; name?: string; input?: unknown; content?: string };
type Message = { role: string; content: string | Block[] };
const messagesOf = (body: WireRequestBody) => body.messages as Message[];
const blocksOf = (m: Message | undefined) => (m && Array.isArray(m.content) ? m.content : []);
const toolNames = (body: WireRequestBody) => ((body.tools ?? []) as { name: string }[]).map((t) => t.name);

const QUESTION = "What is the Mozilla Foundation, and what does it make?";
// Pages of the shared corpus, served on loopback as the open web would serve them.
const PAGES = ["wikipedia", "ehow-1", "medium-1"];

/** Content words of a question: what a searcher would type. */
const contentWords = (text: string) => text.replace(/[^\p{L}\p{N}\s]/gu, " ").split(/\s+/).filter((w) => w.length > 3 && !/^(what|does|make|and|the)$/i.test(w));

/**
 * A model on the wire that decides from what it is sent, not from a script of
 * turns: Main delegates the question once, then answers from whatever handoffs
 * came back; a Child searches its question's words, fetches the first result
 * it was shown, quotes the first sentence of the page that names a word of its
 * question, and hands that off.
 */
function model(body: WireRequestBody): WireBehaviour {
  const system = systemTextOf(body);
  const messages = messagesOf(body);
  const last = messages.at(-1)!;
  const results = blocksOf(last).filter((b) => b.type === "tool_result");
  const calls = messages.flatMap((m) => (m.role === "assistant" ? blocksOf(m).filter((b) => b.type === "tool_use") : []));
  if (system.startsWith("You are Main")) {
    const handoffs = results.flatMap((r) => {
      try {
        return [JSON.parse(r.content!) as { child_executor_id: string; handoff: { findings: { claim: string }[]; summary: string } }];
      } catch {
        return [];
      }
    });
    if (!handoffs.length) {
      return reply([{ type: "tool_use", name: "delegate", input: { question: QUESTION, context: "Use the web.", done_when: "What it is and what it makes, each with a quoted source.", profile: "web-explorer" } }]);
    }
    const claims = handoffs.flatMap((h) =>
      h.handoff.findings.length
        ? h.handoff.findings.map((f, i) => ({ text: f.claim, basis: "observed", citations: [{ executor: h.child_executor_id, finding: i }] }))
        : [{ text: `Not collected: ${h.handoff.summary}`, basis: "not_collected", citations: [] }],
    );
    return reply([{ type: "tool_use", name: "answer", input: { summary: "From the Child's handoff.", sections: [{ heading: "Mozilla", claims }] } }]);
  }
  if (!system.startsWith("You are a Child")) return httpError(400, "invalid_request_error", "this test plays Main and its Children only");
  const task = String(typeof messages[0]!.content === "string" ? messages[0]!.content : "");
  const words = contentWords(QUESTION).filter((w) => task.includes(w));
  const lastCall = calls.at(-1);
  if (!lastCall) return reply([{ type: "text", text: "Searching first." }, { type: "tool_use", name: "web_search", input: { query: words.join(" ") } }]);
  const output = results[0]?.content ?? "";
  const failed = results[0] && (results[0] as { is_error?: boolean }).is_error;
  if (lastCall.name === "web_search" && !failed) {
    const list = output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1);
    const [first] = (JSON.parse(list) as { results: { url: string }[] }).results;
    return reply([{ type: "tool_use", name: "web_fetch", input: { url: first!.url } }]);
  }
  const sentence = output
    .split("\n")
    .flatMap((line) => line.split(/(?<=\.)\s+/))
    .find((s) => s.length > 40 && s.length < 300 && words.some((w) => s.includes(w)) && !s.includes("http"));
  const handoff = {
    summary: "[web-explorer] What the fetched page says of the Mozilla Foundation.",
    findings: sentence ? [{ claim: sentence, evidence: { toolResults: [lastCall.id], citations: [], quotes: [{ toolUseId: lastCall.id, text: sentence }] }, confidence: "medium" }] : [],
    measurementBasis: { sources: [String((lastCall.input as { url: string }).url)], dates: [], units: [], scope: "one page" },
    artifacts: [],
    gaps: sentence ? [] : [`Nothing read: ${output.slice(0, 200)}`],
    executionState: sentence ? "completed" : "not_executed",
    confidence: "medium",
    caveats: [],
  };
  return reply([{ type: "tool_use", name: "handoff", input: handoff }]);
}

async function servePages(): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer(async (req, res) => {
    hits.push(req.url ?? "");
    const name = /^\/([\w-]+)\/$/.exec(req.url ?? "")?.[1];
    if (!name || !PAGES.includes(name)) return res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(await readFile(join(sharedCorpusDir(), "web", name, "source.html")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

describe("ariadne run on the real web: a SearXNG-shaped provider, pages on loopback, a model on the wire", () => {
  let wire: AnthropicWireServer;
  let searxng: SearchProviderServer;
  let pages: Awaited<ReturnType<typeof servePages>>;
  let store: CliStore;
  let run: CliResult;
  let unconfigured: CliResult;
  before(async () => {
    wire = await startAnthropicWireServer({ handler: model });
    pages = await servePages();
    searxng = await startSearchProviderServer(() => ({
      body: {
        query: QUESTION,
        number_of_results: 0,
        results: PAGES.map((p, i) => ({ url: `${pages.origin}/${p}/`, title: p, content: `snippet ${i}`, engine: "duckduckgo", engines: ["duckduckgo"], positions: [i + 1], score: 1, category: "general" })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      },
    }));
    store = await cliStore("realweb");
    const env = { ...store.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: wire.url, ARIADNE_SEARXNG_URL: searxng.origin, ARIADNE_ALLOW_LOOPBACK: "1", ARIADNE_FETCH_INTERVAL_MS: "0", ARIADNE_CONTACT: "mailto:ops@example.org" };
    run = await ariadne(["run", QUESTION, ...store.args], env);
    unconfigured = await ariadne(["run", QUESTION, ...store.args], { ...store.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: wire.url, ARIADNE_SEARCH: "", ARIADNE_SEARXNG_URL: "", BRAVE_SEARCH_API_KEY: "" });
  });
  after(async () => {
    await Promise.all([wire?.close(), searxng?.close(), pages?.close()]);
    await store?.dispose();
  });

  test("the run says first which provider it searches with, and answers", () => {
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const lines = run.stdout.split("\n");
    assert.match(lines[0]!, /^run /);
    assert.equal(lines[1], `web search: SearXNG at ${searxng.origin} (ARIADNE_SEARXNG_URL)`);
  });

  test("no role is offered a demo tool; the Child searches, fetches and quotes", () => {
    const bodies = wire.requests.slice(0, wire.requests.length).map((r) => r.body!).filter(Boolean);
    for (const body of bodies) for (const name of DEMO_TOOLS) assert.ok(!toolNames(body).includes(name), `${name} offered to ${systemTextOf(body).slice(0, 20)}`);
    assert.ok(searxng.requests.some((r) => r.path === "/search" && r.query.get("format") === "json"));
    assert.ok(pages.hits.includes("/wikipedia/"), "the first result was fetched");
    assert.ok(pages.hits.includes("/robots.txt"), "robots.txt was asked for first");
  });

  test("every observed claim traces to a blob web_fetch stored, through a located quote", async () => {
    const runId = /^run (\S+)/.exec(run.stdout)![1]!;
    const { store: log, close } = await openStore(store.open);
    try {
      const claims = await projectClaims(log, runId);
      const observed = claims.claims.filter((c) => c.basis === "observed");
      assert.ok(observed.length > 0, "the answer has observed claims");
      for (const claim of observed) {
        for (const finding of claim.findings) {
          assert.ok(finding.quotes.length > 0, `the finding quotes its source: ${JSON.stringify(finding).slice(0, 1500)}`);
          for (const quote of finding.quotes) {
            assert.equal(quote.call?.tool, "web_fetch");
            assert.ok(quote.blob && quote.source && "sourceKind" in quote.source && quote.source.sourceKind === "web_page", JSON.stringify(quote));
          }
        }
      }
    } finally {
      await close();
    }
  });

  test("ariadne report shows the run's fetch budget: one page read of 200", async () => {
    const runId = /^run (\S+)/.exec(run.stdout)![1]!;
    const report = await ariadne(["report", runId, ...store.args], store.env);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^  fetch budget left: pages 199 of 200 · bytes \d+\.\d MB of 200\.0 MB$/m);
  });

  test("with no provider configured the run's first lines say so and web_search refusals name the variable", () => {
    const lines = unconfigured.stdout.split("\n");
    assert.match(lines[1]!, /^web search: none configured \(set ARIADNE_SEARXNG_URL .* or BRAVE_SEARCH_API_KEY\)/);
    const refusals = wire.requests
      .flatMap((r) => messagesOf(r.body!).flatMap((m) => blocksOf(m)))
      .filter((b) => b.type === "tool_result" && /web_search has no search provider/.test(String(b.content)));
    assert.ok(refusals.length > 0, "the Child was told web_search has no provider");
    assert.ok(refusals.every((b) => /set ARIADNE_SEARXNG_URL/.test(String(b.content))));
  });
});

test("ARIADNE_SEARCH naming no provider refuses the run before it starts: exit 2, one line", async () => {
  const refused = await ariadne(["run", QUESTION], { ANTHROPIC_API_KEY: "sk-test", ARIADNE_SEARCH: "google" });
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr.trim(), "ariadne: ARIADNE_SEARCH=google names no search provider; use one of searxng, brave, anthropic, corpus");
  assert.equal(refused.stdout, "");
});
