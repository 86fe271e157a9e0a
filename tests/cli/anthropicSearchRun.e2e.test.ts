import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { sql } from "kysely";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { openStore } from "../../events/openStore.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { WEB_SEARCH_MICROS, priceOf, usageCostMicros } from "../../governance/index.ts";
import { type AnthropicWireServer, type WireBehaviour, type WireBlock, type WireRequestBody, httpError, reply, scriptedSearchResult, startAnthropicWireServer, systemTextOf } from "../../models/testing/index.ts";
import { projectClaims } from "../../projections/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { type CliResult, type CliStore, STACK_LINE, ariadne, cliStore } from "./ariadneProcess.ts";

type Block = { type: string; id?: string; name?: string; input?: unknown; content?: unknown; tool_use_id?: string; citations?: unknown };
type Message = { role: string; content: string | Block[] };
const messagesOf = (body: WireRequestBody) => body.messages as Message[];
const blocksOf = (m: Message | undefined) => (m && Array.isArray(m.content) ? m.content : []);

const QUESTION = "What is the Mozilla Foundation, and what does it make?";
const FAILING = "What does the Mozilla Foundation publish each year?";
const QUERY = "Mozilla Foundation";

/**
 * A model on the wire playing Anthropic's server-side search (scripted: the
 * wire server runs no search, its hits are the pages served below). Main
 * delegates once and answers from the handoffs. A Child's first reply searches
 * server-side and, in the same reply, asks web_fetch for the first hit (its
 * text cites the hit, as Anthropic's would); it then quotes the fetched page.
 * For FAILING, the search fails with too_many_requests and the Child hands off
 * that nothing was read.
 */
function model(origin: string) {
  return (body: WireRequestBody): WireBehaviour => {
    const system = systemTextOf(body);
    const messages = messagesOf(body);
    const results = blocksOf(messages.at(-1)).filter((b) => b.type === "tool_result");
    const task = String(typeof messages[0]!.content === "string" ? messages[0]!.content : "");
    if (system.startsWith("You are Main")) {
      const question = task.includes(FAILING) ? FAILING : QUESTION;
      const handoffs = results.flatMap((r) => {
        try {
          return [JSON.parse(String(r.content)) as { child_executor_id: string; handoff: { findings: { claim: string }[]; summary: string } }];
        } catch {
          return [];
        }
      });
      if (!handoffs.length) return reply([{ type: "tool_use", name: "delegate", input: { question, context: "Use the web.", done_when: "Answered with a quoted source.", profile: "web-explorer" } }]);
      const claims = handoffs.flatMap((h) =>
        h.handoff.findings.length
          ? h.handoff.findings.map((f, i) => ({ text: f.claim, basis: "observed", citations: [{ executor: h.child_executor_id, finding: i }] }))
          : [{ text: `Not collected: ${h.handoff.summary}`, basis: "not_collected", citations: [] }],
      );
      return reply([{ type: "tool_use", name: "answer", input: { summary: "From the Child's handoff.", sections: [{ heading: "Mozilla", claims }] } }]);
    }
    if (!system.startsWith("You are a Child")) return httpError(400, "invalid_request_error", "this test plays Main and its Children only");
    const turns = messages.filter((m) => m.role === "assistant").length;
    if (task.includes(FAILING)) {
      if (turns === 0) {
        return reply([
          { type: "server_tool_use", id: "srvtoolu_fail", name: "web_search", input: { query: QUERY } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_fail", content: { type: "web_search_tool_result_error", error_code: "too_many_requests" } },
          { type: "text", text: "The search was refused; I have nothing to read." },
        ]);
      }
      return reply([{ type: "tool_use", name: "handoff", input: handoffOf(null, "the server-side search was rate limited") }]);
    }
    if (turns === 0) {
      const hits = [scriptedSearchResult(`${origin}/wikipedia/`, "Mozilla Foundation - Wikipedia", "1 year ago"), scriptedSearchResult(`${origin}/medium-1/`, "Mozilla on Medium")];
      const searched: WireBlock[] = [
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: QUERY } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: hits },
        {
          type: "text",
          text: "The Mozilla Foundation is a non-profit that makes Firefox.",
          citations: [{ type: "web_search_result_location", url: hits[0]!.url, title: hits[0]!.title, encrypted_index: "scripted", cited_text: "The Mozilla Foundation is a non-profit" }],
        },
        { type: "tool_use", id: "toolu_fetch_1", name: "web_fetch", input: { url: hits[0]!.url } },
      ];
      return reply(searched);
    }
    const output = String(results[0]?.content ?? "");
    const sentence = output
      .split("\n")
      .flatMap((line) => line.split(/(?<=\.)\s+/))
      .find((s) => s.length > 40 && s.length < 300 && s.includes("Mozilla") && !s.includes("http"));
    return reply([{ type: "tool_use", name: "handoff", input: handoffOf(sentence ? { sentence, toolUseId: "toolu_fetch_1" } : null, `Nothing read: ${output.slice(0, 200)}`) }]);
  };
}

function handoffOf(quote: { sentence: string; toolUseId: string } | null, gap: string) {
  return {
    summary: "[web-explorer] What the fetched page says of the Mozilla Foundation.",
    findings: quote ? [{ claim: quote.sentence, evidence: { toolResults: [quote.toolUseId], citations: [], quotes: [{ toolUseId: quote.toolUseId, text: quote.sentence }] }, confidence: "medium" }] : [],
    measurementBasis: { sources: [], dates: [], units: [], scope: "one page" },
    artifacts: [],
    gaps: quote ? [] : [gap],
    executionState: quote ? "completed" : "not_executed",
    confidence: "medium",
    caveats: [],
  };
}

async function servePages(): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer(async (req, res) => {
    hits.push(req.url ?? "");
    const name = /^\/([\w-]+)\/$/.exec(req.url ?? "")?.[1];
    if (!name || !["wikipedia", "medium-1"].includes(name)) return res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(await readFile(join(sharedCorpusDir(), "web", name, "source.html")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

describe("ariadne run with ARIADNE_SEARCH=anthropic: Anthropic's server-side search on the wire, pages on loopback", () => {
  let wire: AnthropicWireServer;
  let pages: Awaited<ReturnType<typeof servePages>>;
  let store: CliStore;
  let env: Record<string, string>;
  let run: CliResult;
  let runId: string;
  let events: RecordedEvent[];
  const childBodies = () => wire.requests.map((r) => r.body!).filter((b) => systemTextOf(b).startsWith("You are a Child") && !String(messagesOf(b)[0]!.content).includes(FAILING));

  before(async () => {
    pages = await servePages();
    wire = await startAnthropicWireServer({ handler: model(pages.origin) });
    store = await cliStore("anthropicsearch");
    env = { ...store.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: wire.url, ARIADNE_SEARCH: "anthropic", ARIADNE_ANTHROPIC_SEARCH_MAX_USES: "3", ARIADNE_ALLOW_LOOPBACK: "1", ARIADNE_FETCH_INTERVAL_MS: "0" };
    run = await ariadne(["run", QUESTION, ...store.args], env);
    runId = /^run (\S+)/.exec(run.stdout)?.[1] ?? "";
    const { store: log, close } = await openStore(store.open);
    try {
      events = await log.readRun(runId);
    } finally {
      await close();
    }
  });
  after(async () => {
    await Promise.all([wire?.close(), pages?.close()]);
    await store?.dispose();
  });

  const turnsOf = () => events.filter((e): e is RecordedEvent<"turn"> => e.type === "turn");
  const searchTurn = () => turnsOf().find((t) => t.data.searches?.length)!;

  test("the run says first that it searches with Anthropic's server tool, and answers", () => {
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(run.stdout.split("\n")[1], "web search: Anthropic's server-side web search (ARIADNE_SEARCH=anthropic; at most 3 searches per model call; billed per search)");
  });

  test("a Child granted web_search is offered Anthropic's server tool in its place", () => {
    const [first] = childBodies();
    const search = (first!.tools as Record<string, unknown>[]).filter((t) => t.name === "web_search");
    assert.deepEqual(search, [{ name: "web_search", type: "web_search_20250305", max_uses: 3 }]);
  });

  test("its next request carries the search blocks back as they came, and its text without the citations of encrypted content", () => {
    const [, second] = childBodies();
    const assistant = messagesOf(second!).find((m) => m.role === "assistant")!;
    const blocks = blocksOf(assistant);
    assert.deepEqual(blocks.map((b) => b.type), ["server_tool_use", "web_search_tool_result", "text", "tool_use"]);
    assert.deepEqual(blocks[0], { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: QUERY } });
    assert.deepEqual((blocks[1]!.content as { url: string; encrypted_content: string }[]).map((r) => r.url), [`${pages.origin}/wikipedia/`, `${pages.origin}/medium-1/`]);
    assert.match((blocks[1]!.content as { encrypted_content: string }[])[0]!.encrypted_content, /^scripted-by-ariadne-wire-server:/);
    assert.equal(blocks[2]!.citations, undefined);
  });

  test("the hit's URL was one the Child had seen: web_fetch read it (a URL it had not seen is refused as not_reachable)", () => {
    assert.ok(pages.hits.includes("/wikipedia/"), "the page was fetched");
    const fetched = events.find((e) => e.type === "tool_completed" && e.data.tool === "web_fetch");
    assert.ok(fetched, JSON.stringify(events.filter((e) => e.type === "tool_failed").map((e) => e.data)));
  });

  test("the turn records the search: its blocks, the searches billed, and the result list as an untrusted search_results source", () => {
    const turn = searchTurn();
    assert.deepEqual(turn.data.response.content.map((b) => b.type), ["server_tool_use", "web_search_tool_result", "text", "tool_use"]);
    assert.equal(turn.data.usage.webSearchRequests, 1);
    const [search] = turn.data.searches!;
    assert.equal(search!.toolUseId, "srvtoolu_1");
    assert.equal(search!.query, QUERY);
    assert.equal(search!.source!.kind, "search_results");
    assert.equal(search!.source!.url, `search:anthropic?q=${encodeURIComponent(QUERY)}`);
  });

  test("the search is in the run's cost: its turn settles 10 USD per 1,000 searches above its tokens", () => {
    const turn = searchTurn();
    const { webSearchRequests: _, ...tokens } = turn.data.usage;
    const settled = events.filter((e): e is RecordedEvent<"budget_settled"> => e.type === "budget_settled" && e.metadata.executorId === turn.metadata.executorId);
    const costs = settled.map((e) => e.data.actual.costMicros);
    assert.ok(costs.includes(usageCostMicros(priceOf(turn.data.model), tokens) + WEB_SEARCH_MICROS), `settled ${costs.join(", ")}`);
  });

  test("every observed claim cites a page web_fetch stored, never the search results", async () => {
    const { store: log, close } = await openStore(store.open);
    try {
      const observed = (await projectClaims(log, runId)).claims.filter((c) => c.basis === "observed");
      assert.ok(observed.length > 0);
      for (const claim of observed) for (const finding of claim.findings) for (const quote of finding.quotes) assert.equal(quote.call?.tool, "web_fetch");
    } finally {
      await close();
    }
  });

  test("the result list's raw blob is the result block as it came", async () => {
    const { database, close } = await openStore(store.open);
    try {
      const raw = await createDatabaseBlobStore(database.db).get(searchTurn().data.searches![0]!.source!.rawSha256);
      assert.deepEqual(JSON.parse(new TextDecoder().decode(raw!)), searchTurn().data.response.content[1]);
    } finally {
      await close();
    }
  });

  test("ariadne report shows the search and the search budget; the transcript shows the search and its digests match", async () => {
    const report = await ariadne(["report", runId, ...store.args], store.env);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^  web searches: 1 server-side \(in the cost, 10 USD per 1,000\) · search budget left: 49 of 50$/m);
    const transcript = await ariadne(["transcript", searchTurn().metadata.executorId, ...store.args], store.env);
    assert.equal(transcript.code, 0, transcript.stdout + transcript.stderr);
    assert.match(transcript.stdout, /server_tool_use srvtoolu_1 web_search \{"query":"Mozilla Foundation"\} \(run by Anthropic\)/);
    assert.doesNotMatch(transcript.stdout, /MISMATCH/);
  });

  test("a failed server-side search (too_many_requests) is a note in the turn and the transcript, not a crash", async () => {
    const failed = await ariadne(["run", FAILING, ...store.args], env);
    assert.doesNotMatch(failed.stderr, STACK_LINE);
    assert.ok([0, 3].includes(failed.code!), failed.stderr + failed.stdout);
    const id = /^run (\S+)/.exec(failed.stdout)![1]!;
    const { store: log, close } = await openStore(store.open);
    let turn: RecordedEvent<"turn"> | undefined;
    try {
      turn = (await log.readRun(id)).find((e): e is RecordedEvent<"turn"> => e.type === "turn" && !!e.data.searches?.length);
    } finally {
      await close();
    }
    assert.deepEqual(turn!.data.searches, [
      { toolUseId: "srvtoolu_fail", query: QUERY, error: { code: "too_many_requests", note: `web search "${QUERY}" failed (too_many_requests): Anthropic is rate limiting web searches; later turns may search again.` } },
    ]);
    const transcript = await ariadne(["transcript", turn!.metadata.executorId, ...store.args], store.env);
    assert.match(transcript.stdout, /web_search_tool_result for srvtoolu_fail: search failed: too_many_requests/);
  });

  test("an exported bundle carries the result list's blobs and lists the search in sources.jsonl; it verifies offline", async () => {
    const root = await mkdtemp(join(tmpdir(), "ariadne-anthropic-search-"));
    try {
      const made = await ariadne(["keys", "signing", "create", "--out", join(root, "keys")]);
      assert.equal(made.code, 0, made.stderr);
      const dir = join(root, "bundle");
      const exported = await ariadne(["export", runId, dir, ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: join(root, "keys/seal.key") });
      assert.equal(exported.code, 0, exported.stderr);
      const { source } = searchTurn().data.searches![0]!;
      for (const sha of [source!.rawSha256, source!.textSha256]) assert.ok(existsSync(join(dir, "blobs/sha256", sha)), `blob ${sha} in the bundle`);
      const listed = (await readFile(join(dir, "sources.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { tool: string; toolUseId: string; url: string; kind: string });
      assert.ok(listed.some((l) => l.tool === "web_search" && l.toolUseId === "srvtoolu_1" && l.kind === "search_results" && l.url === source!.url), JSON.stringify(listed));
      const verified = await ariadne(["verify", dir, "--key", join(root, "keys/seal.pub")]);
      assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  // Last: it changes the store.
  test("verify checks the result list's blobs: intact (exit 4, unsigned), then a changed one is named", async () => {
    const intact = await ariadne(["verify", runId, ...store.args], store.env);
    assert.equal(intact.code, 4, intact.stdout + intact.stderr);
    const { rawSha256, url } = searchTurn().data.searches![0]!.source!;
    const { database, close } = await openStore(store.open);
    try {
      await database.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
        await sql`UPDATE ariadne_source_blobs SET bytes = convert_to(replace(convert_from(bytes, 'UTF8'), 'Mozilla', 'Mozzila'), 'UTF8') WHERE sha256 = ${rawSha256}`.execute(trx);
        await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      });
    } finally {
      await close();
    }
    const changed = await ariadne(["verify", runId, ...store.args], store.env);
    assert.equal(changed.code, 1);
    assert.ok(changed.stdout.includes(`blob ${rawSha256} (the raw bytes of source ${url}) was changed`), changed.stdout);
  });
});

test("ARIADNE_SEARCH=anthropic without an Anthropic key, or with both domain lists, refuses the run before it starts: exit 2, one line", async () => {
  const keyless = await ariadne(["run", QUESTION], { ARIADNE_SEARCH: "anthropic", ANTHROPIC_API_KEY: "" });
  assert.equal(keyless.code, 2);
  assert.match(keyless.stderr.trim(), /^ariadne: /);
  const both = await ariadne(["run", QUESTION], { ANTHROPIC_API_KEY: "sk-test", ARIADNE_SEARCH: "anthropic", ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS: "a.org", ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS: "b.org" });
  assert.equal(both.code, 2);
  assert.equal(both.stderr.trim(), "ariadne: ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS and ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS cannot both be set (Anthropic's web search takes one or the other)");
  assert.equal(both.stdout, "");
});
