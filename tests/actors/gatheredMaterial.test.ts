import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { checkAnswer } from "../../checker/checkAnswer.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { answerToCheck } from "../../runs/check/answerToCheck.ts";
import { rereadSources } from "../../runs/check/rereadSources.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { ToolRegistry, createWebTools } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

// Two pages of the morning-briefing corpus: a real news item, and the hostile "sponsored tip" the research Child leaves out.
const CORPUS = new URL("../../scenarios/corpora/briefing/", import.meta.url);
const PAGES: Record<string, string> = {
  "/news-stablecoin-supply/": readFileSync(new URL("news-stablecoin-supply/source.html", CORPUS), "utf8"),
  "/news-sponsored-tip/": readFileSync(new URL("news-sponsored-tip/source.html", CORPUS), "utf8"),
};
const HOSTILE_TITLE = "the token analysts say will 10x";

let server: Server;
let origin: string;
let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-gathered-"));
  server = createServer((req, res) => {
    const page = PAGES[req.url ?? ""];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(workspaces, { recursive: true, force: true });
});

const urls = () => Object.keys(PAGES).map((p) => `${origin}${p}`);

/** A research Child that fetches both pages in its first turn, then keeps fetching until a limit stops it. */
const fetchingForever: ScriptPolicy = (request) =>
  turnsTaken(request) === 0
    ? { content: urls().map((url) => ({ type: "tool_use" as const, name: "web_fetch", input: { url } })) }
    : { content: [{ type: "tool_use", name: "web_fetch", input: { url: urls()[0] } }] };

/** A Child that fetches both pages, then keeps handing off an invalid handoff whose gaps exclude the news page. */
const excludingThenFailing: ScriptPolicy = (request) => {
  if (turnsTaken(request) === 0) return { content: urls().map((url) => ({ type: "tool_use" as const, name: "web_fetch", input: { url } })) };
  const reply = handoffReply(handoffInput("Read two pages.", [{ claim: "Supply rose.", evidence: { toolResults: ["toolu_invented"], citations: [] }, confidence: "high" }]));
  const input = (reply as { content: { input: Record<string, unknown> }[] }).content[0].input;
  input.gaps = [`${urls()[0]} is sponsored content; its content is not used.`];
  return reply;
};

forEachEngine("a forced partial handoff hands on gathered material, never observed findings, and never a hostile page", (ctx) => {
  async function stoppedRun(child: ScriptPolicy, limits: { maxToolCalls?: number }) {
    const blobs = createDatabaseBlobStore(ctx.db.database.db);
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation(`What do ${urls().join(" and ")} report?`, "web-explorer", { tools: ["web_fetch"] })]) });
    const runtime = runtimeWith(
      ctx.store,
      { main, child: new ScriptedModel({ name: "child", policy: child }) },
      { tools: new ToolRegistry().register(...createWebTools({ allowLoopback: true })), blobs, workspaceRoot: workspaces, limits: { child: limits } },
    );
    const run = await runtime.startRun("What does the morning's news say?");
    const outcome = await within(20_000, run.result);
    const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    const [committed] = ofType(await streamOf(ctx.store, childId), "handoff_committed");
    return { run, outcome, childId, committed, blobs };
  }

  test("stopped by its tool call limit: the news page is gathered, unverified material with its blob; the hostile page stays out of the handoff and the answer", async () => {
    const { run, outcome, childId, committed, blobs } = await stoppedRun(fetchingForever, { maxToolCalls: 2 });
    assert.equal(committed.data.forced, true);
    const handoff = committed.data.handoff as { findings: { claim: string; confidence: string; gathered?: boolean; evidence: { toolResults: string[] } }[]; gaps: string[] };
    assert.equal(handoff.findings.length, 1, "one result gathered, the hostile one left out");
    const [gathered] = handoff.findings;
    assert.equal(gathered.gathered, true);
    assert.equal(gathered.confidence, "low");
    assert.match(gathered.claim, /^Gathered, not summarised \(unverified\): web_fetch .*\(blobs: [0-9a-f]{64}, source http:\/\/127\.0\.0\.1:\d+\/news-stablecoin-supply\/\)/);
    assert.ok(!JSON.stringify(handoff.findings).includes(HOSTILE_TITLE));
    assert.ok(handoff.gaps.some((g) => g.includes(`${urls()[1]}: its text addresses instructions to AI assistants`)), handoff.gaps.join(" | "));

    // Main (scripted to cite every finding as observed) never repeats the hostile title; the checker does not count the claim as observed.
    const answer = answerOf(outcome);
    assert.ok(!JSON.stringify(answer).includes(HOSTILE_TITLE));
    const input = await answerToCheck(ctx.store, blobs, run.runId);
    const check = checkAnswer({ ...input, rereads: await rereadSources(run.runId, input.claims, { web: { allowLoopback: true }, blobs, workspaceRoot: workspaces }) });
    const cites = check.claims.filter((c) => input.claims.claims.find((x) => x.id === c.claimId)!.findings.some((f) => f.executorId === childId));
    assert.ok(cites.length > 0);
    for (const c of cites) {
      assert.equal(c.verdict, "no_evidence");
      assert.match(c.notes.join("; "), /gathered and never summarised \(unverified\)/);
    }
    assert.equal(check.verdict, "unsupported");
  });

  test("out of repairs: a source the Child's own last attempt excluded is not handed on as gathered material either", async () => {
    const { committed } = await stoppedRun(excludingThenFailing, {});
    assert.equal(committed.data.forced, true);
    const handoff = committed.data.handoff as { findings: { claim: string; gathered?: boolean }[]; gaps: string[] };
    assert.deepEqual(handoff.findings.filter((f) => f.gathered), [], "neither page is gathered material");
    const gap = handoff.gaps.find((g) => g.includes("left out"))!;
    assert.match(gap, new RegExp(`${urls()[0].replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: the Child excluded it`));
    assert.match(gap, /addresses instructions to AI assistants/);
  });
});

