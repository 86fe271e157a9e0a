import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { sealRun } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import { checkRun } from "../../runs/checkRun.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { ToolRegistry, createWebTools } from "../../tools/index.ts";
import { renderAuditPage } from "../../ui/AuditPage.tsx";
import { auditPageData, excerptBlobs } from "../../ui/auditData.ts";
import { verdictFromEvents } from "../../ui/verdict.ts";
import { delegatingMain, delegation, handoffInput, handoffReply, runtimeWith, useReply, within } from "../actors/fixtures.ts";
import { scratchDir } from "../bundle/exportedRun.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { launchChromium } from "./chromium.ts";

const FEE = "The ongoing charge is 0.45% a year, down from 0.52%.";
let server: Server;
let origin: string;
let workspaces: string;

before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-flagged-"));
  server = createServer((_, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(`Fund notice.\n${FEE}\n`));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(workspaces, { recursive: true, force: true });
});

/** A Child that fetches the notice and hands off its fee sentence, quoted. */
const child = new ScriptedModel({
  name: "child",
  policy: (request) => {
    if (turnsTaken(request) === 0) return useReply("web_fetch", { url: `${origin}/notice` });
    const read = request.messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).find((b) => b.type === "tool_use") as { id: string };
    return handoffReply(handoffInput("Read it.", [{ claim: FEE, evidence: { toolResults: [read.id], citations: [], quotes: [{ toolUseId: read.id, text: FEE }] }, confidence: "high" }]));
  },
});

/** Main answers with a fabricated quote in its observed claim and advice as a judgment: what an auditor must see flagged. */
function main(): ScriptedModel {
  const base = delegatingMain([delegation(`What does ${origin}/notice say about the charge?`, "web-explorer", { tools: ["web_fetch"] })]);
  const policy: ScriptPolicy = async (request, i) => {
    const reply = await base(request, i);
    if (typeof reply === "object" && !(reply instanceof Error)) {
      for (const b of reply.content) {
        if (b.type !== "tool_use" || b.name !== "answer") continue;
        const answer = b.input as { sections: { claims: { text: string; basis: string; citations: unknown[] }[] }[] };
        answer.sections[0].claims[0].text = 'The notice says: "The ongoing charge is 0.40% a year." It was 0.62% before.';
        answer.sections[0].claims.push({ text: "You should buy ADIV now.", basis: "judgment", citations: [] });
      }
    }
    return reply;
  };
  return new ScriptedModel({ name: "main", policy });
}

forEachEngine("the audit page of a flagged answer, opened in headless Chromium", (ctx) => {
  test("the banner shows the check verdict beside the chain status; a flagged claim opens with a badge per flag kind, the judgment's advice included", async () => {
    const blobs = createDatabaseBlobStore(ctx.db.database.db);
    const runtime = runtimeWith(ctx.store, { main: main(), child }, { tools: new ToolRegistry().register(...createWebTools({ allowLoopback: true })), blobs, workspaceRoot: workspaces });
    const run = await runtime.startRun("What is the charge?");
    assert.equal((await within(20_000, run.result)).kind, "answer");
    await sealRun(ctx.store, run);
    const { result } = await checkRun(ctx.store, run.runId, { web: { allowLoopback: true }, blobs, workspaceRoot: workspaces });
    assert.equal(result.verdict, "flagged");

    const events = await ctx.store.readRun(run.runId);
    const claims = claimsOfEvents(run.runId, events);
    const held = new Map<string, Uint8Array | null>();
    for (const sha of excerptBlobs(claims)) held.set(sha, await blobs.get(sha));
    const html = renderAuditPage(auditPageData({ runId: run.runId, events, claims, blob: (sha) => held.get(sha) ?? null, verdict: verdictFromEvents(run.runId, events) }));
    const dir = scratchDir("flagged-audit");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "audit.html"), html);
    // Without a browser the page's own markup still says so.
    assert.match(html, /<p class="check check-flagged" id="check-verdict" data-verdict="flagged">check: flagged \(2 of 2 claims flagged\)<\/p>/);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      await page.goto(pathToFileURL(join(dir, "audit.html")).href);
      assert.match(await page.locator("#verdict h1").innerText(), /^Chain intact$/);
      assert.match(await page.locator("#check-verdict").innerText(), /^check: flagged \(2 of 2 claims flagged\)/);
      assert.equal(await page.locator("#check-verdict").evaluate((e) => getComputedStyle(e).backgroundColor), "rgb(163, 32, 32)");

      // The observed claim: flagged for its quote and its number, each a badge; opened, its chain shows the real quote.
      const c1 = page.locator("#c1");
      assert.deepEqual(await c1.locator("summary .flag").allInnerTexts(), ["number", "quote"]);
      assert.equal(await c1.locator("mark.quote").first().isVisible(), false);
      await c1.locator("> summary").click();
      assert.equal(await c1.locator("mark.quote").first().isVisible(), true);
      assert.match(await c1.locator("summary .why").innerText(), /quote "The ongoing charge is 0\.40% a year\.": in no blob it cites/);
      // The judgment: the checker's advice badge, not a grey "judgment" and never "source changed".
      const c2 = page.locator("#c2");
      assert.equal(await c2.getAttribute("data-badge"), "flagged");
      assert.deepEqual(await c2.locator("summary .flag").allInnerTexts(), ["advice"]);
      await page.screenshot({ path: join(dir, "flagged.png"), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
