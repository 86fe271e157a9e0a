import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { readEventLines } from "../../bundle/checkEvents.ts";
import { exportRun } from "../../bundle/exportRun.ts";
import { verifyBundle } from "../../bundle/verifyBundle.ts";
import { createEventStore } from "../../events/index.ts";
import { scratchDir } from "../bundle/exportedRun.ts";
import { type Harness, bearer, openHarness, postJson, waitForFinal } from "../http/harness.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";
import { verdictFromEvents } from "../../ui/verdict.ts";
import { launchChromium } from "./chromium.ts";

/** Where the screenshot is kept (README, "The audit page"); gitignored. */
const OUTPUT = fileURLToPath(new URL("../../test-output/", import.meta.url));

/** The <main> of a page: the answer, the claims with their chains and the timeline (the banner says how it was checked, which differs). */
const mainOf = (html: string) => html.slice(html.indexOf("<main>"), html.indexOf("</main>") + "</main>".length);
const policyOf = (html: string) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1]?.replaceAll("&#39;", "'");

describe("the audit page: a settled run's bundle opened in headless Chromium, and the same page served", () => {
  const engine = ENGINES[0];
  const key = generateKeyPairSync("ed25519");
  let db: TestDatabase;
  let h: Harness;
  let client: string;
  let runId: string;
  let dir: string;
  let claims: { id: string; text: string; basis: string; findings: { quotes: { text: string }[] }[] }[];

  before(async () => {
    db = await openTestDatabase(engine);
    h = await openHarness(createEventStore(db.database));
    client = await h.key("client", h.tenant());
    const created = (await (await h.app.request("/v1/runs", postJson(client, { offline: true }))).json()) as { id: string };
    const run = await waitForFinal(h.app, client, created.id);
    assert.equal(run.state, "settled");
    runId = run.id;
    dir = join(scratchDir("audit"), "bundle");
    await exportRun(db.database, runId, dir, key.privateKey);
    claims = ((await (await h.app.request(`/v1/runs/${runId}/claims`, { headers: bearer(client) })).json()) as { claims: typeof claims }).claims;
  });
  after(async () => {
    await h?.close();
    await db?.dispose();
  });

  test("audit.html is a derived file: listed in the manifest, re-derived byte for byte by verify, fetching nothing", () => {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: { path: string }[] };
    assert.ok(manifest.files.some((f) => f.path === "audit.html"));
    const verified = verifyBundle(dir, { publicKey: key.publicKey });
    assert.deepEqual(verified.problems, []);
    const html = readFileSync(join(dir, "audit.html"), "utf8");
    assert.match(policyOf(html) ?? "", /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; /);
    // Nothing to load: no script, no link, no src, no url() or @import.
    assert.doesNotMatch(html, /<script|<link|\ssrc=|url\(|@import/i);
    for (const c of claims) assert.match(html, new RegExp(`<details class="claim" id="${c.id}"`));
  });

  test("the bundle page's banner comes from the events: a dropped event or a moved root is NOT intact", () => {
    const { events } = readEventLines(readFileSync(join(dir, "events.jsonl"), "utf8"), runId);
    const intact = verdictFromEvents(runId, events);
    assert.deepEqual({ intact: intact.intact, problem: intact.problem }, { intact: true, problem: null });
    assert.match(intact.rootHash ?? "", /^[0-9a-f]{64}$/);
    const child = events.find((e) => e.type === "executor_admitted" && e.data.role !== "main")!.streamId;
    const middle = events.filter((e) => e.streamId === child)[2]!;
    const dropped = verdictFromEvents(runId, events.filter((e) => e !== middle));
    assert.equal(dropped.intact, false);
    assert.match(dropped.problem ?? "", new RegExp(`^${child} v${middle.streamVersion + 1}: does not link`));
    const last = events.filter((e) => e.streamId === child).at(-1)!;
    const moved = verdictFromEvents(runId, events.map((e) => (e === last ? { ...e, hash: "f".repeat(64) } : e)));
    assert.equal(moved.intact, false);
  });

  test("from file://, clicking a claim opens its chain with the recorded quote highlighted in its source text", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const fetched: string[] = [];
      const refused: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith("file:")) fetched.push(r.url());
      });
      page.on("console", (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
      });
      await page.goto(pathToFileURL(join(dir, "audit.html")).href);
      assert.match((await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content")) ?? "", /^default-src 'none'/);
      // The inlined stylesheet applies under the policy (its hash is right): the intact banner is green.
      assert.equal(await page.locator("#verdict").evaluate((e) => getComputedStyle(e).backgroundColor), "rgb(31, 111, 67)");
      assert.match(await page.locator("#verdict h1").innerText(), /^Chain intact$/);

      const quoted = claims.find((c) => c.basis === "observed" && c.findings[0]?.quotes.length);
      assert.ok(quoted, "an observed claim with a quote");
      const mark = page.locator(`#${quoted.id} mark.quote`).first();
      assert.equal(await mark.isVisible(), false, "the chain is closed until the claim is clicked");
      await page.locator(`#${quoted.id} > summary`).click();
      assert.equal(await mark.isVisible(), true);
      assert.equal(await mark.innerText(), quoted.findings[0]!.quotes[0]!.text);
      // In context: the source text around the quote is shown too.
      const excerpt = (await page.locator(`#${quoted.id} blockquote.excerpt`).first().innerText()).trim();
      assert.ok(excerpt.length > quoted.findings[0]!.quotes[0]!.text.length, "text around the quote");
      assert.match(await page.locator(`#${quoted.id} .tokens`).first().innerText(), /^\d+ in \/ \d+ out tokens$/);

      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, "audit.png"), fullPage: true });
      assert.deepEqual(fetched, [], "the page fetched nothing");
      assert.deepEqual(refused, [], "the policy refused nothing the page uses");
    } finally {
      await browser.close();
    }
  });

  test("GET /v1/runs/{id}/audit serves the same page, with its policy as a header, to whoever may read the run", async () => {
    const res = await h.app.request(`/v1/runs/${runId}/audit`, { headers: bearer(client) });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const served = await res.text();
    const bundled = readFileSync(join(dir, "audit.html"), "utf8");
    assert.match(res.headers.get("content-security-policy") ?? "", new RegExp(`^${escape(policyOf(bundled)!)}; frame-ancestors 'none'$`));
    assert.equal(policyOf(served), policyOf(bundled));
    assert.equal(mainOf(served), mainOf(bundled), "the same answer, claims, chains and timeline");
    assert.deepEqual([...served.matchAll(/data-claim="(c\d+)"/g)].map((m) => m[1]), claims.map((c) => c.id));
    // The banner: checked in the database now, intact, with the seal's root hash.
    assert.match(served, /data-intact="true"/);
    const { rootHash } = (await (await h.app.request(`/v1/runs/${runId}/verify`, { headers: bearer(client) })).json()) as { rootHash: string };
    assert.match(served, new RegExp(`<code id="root-hash">${rootHash}</code>`));

    const auditor = await h.key("auditor", h.tenant());
    assert.equal((await h.app.request(`/v1/runs/${runId}/audit`, { headers: bearer(auditor) })).status, 404, "another tenant's run");
    assert.equal((await h.app.request(`/v1/runs/${runId}/audit`)).status, 401);
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
