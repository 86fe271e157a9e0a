import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson } from "./harness.ts";

interface Page {
  data: { id: string; createdAt: string; metadata: Record<string, string> }[];
  has_more: boolean;
  next_cursor: string | null;
  order: "asc" | "desc";
}

// Issue 18: the list's shape (data, has_more, next_cursor, order), created_after / created_before, and metadata.
forEachEngine("GET /v1/runs: list shape, time bounds and metadata", (ctx) => describe("list", () => {
  let h: Harness;
  let key: string;
  const ids: string[] = [];
  const created: string[] = [];
  before(async () => {
    // No worker: the runs stay queued, nothing else touches them.
    h = await openHarness(ctx.store, { workers: false });
    key = await h.key("client", h.tenant("shape"));
    for (let i = 0; i < 5; i++) {
      const res = await h.app.request("/v1/runs", postJson(key, { offline: true, context: `run ${i}`, metadata: { batch: i < 3 ? "a" : "b", n: String(i) } }));
      assert.equal(res.status, 201, await res.clone().text());
      const run = (await res.json()) as { id: string; createdAt: string; metadata: Record<string, string> };
      assert.deepEqual(run.metadata, { batch: i < 3 ? "a" : "b", n: String(i) }, "the created run carries its metadata");
      ids.push(run.id);
      created.push(run.createdAt);
      await sleep(5); // distinct milliseconds
    }
  });
  after(() => h.close());

  const list = async (query: string): Promise<Page> => {
    const res = await h.app.request(`/v1/runs?${query}`, { headers: bearer(key) });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Page;
  };
  const all = async (query: string): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`${query}${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.data.map((r) => r.id));
      assert.equal(page.has_more, page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    return seen;
  };

  test("the page is data, has_more, next_cursor and order; the old runs/next are gone", async () => {
    const page = await list("limit=2");
    assert.deepEqual(Object.keys(page).sort(), ["data", "has_more", "next_cursor", "order"]);
    assert.deepEqual(page.data.map((r) => r.id), [ids[4], ids[3]]);
    assert.equal(page.has_more, true);
    assert.equal(page.order, "desc");
  });

  test("order=asc pages oldest first, every run once; desc is its reverse", async () => {
    assert.deepEqual(await all("limit=2&order=asc"), ids);
    assert.deepEqual(await all("limit=2&order=desc"), [...ids].reverse());
    assert.equal((await list("order=asc&limit=1")).order, "asc");
    assert.equal((await h.app.request("/v1/runs?order=sideways", { headers: bearer(key) })).status, 400);
  });

  test("created_after and created_before are exclusive bounds, to the millisecond createdAt shows", async () => {
    assert.deepEqual(await all(`limit=2&order=asc&created_after=${encodeURIComponent(created[1]!)}`), ids.slice(2));
    assert.deepEqual(await all(`limit=2&order=asc&created_before=${encodeURIComponent(created[3]!)}`), ids.slice(0, 3));
    assert.deepEqual(await all(`order=asc&created_after=${encodeURIComponent(created[0]!)}&created_before=${encodeURIComponent(created[4]!)}`), ids.slice(1, 4));
    const bad = await h.app.request("/v1/runs?created_after=yesterday", { headers: bearer(key) });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { detail: string }).detail, /created_after/);
  });

  test("metadata[key]=value filters (every pair must match), and pages", async () => {
    assert.deepEqual(await all("order=asc&limit=1&metadata[batch]=a"), ids.slice(0, 3));
    assert.deepEqual(await all("order=asc&metadata[batch]=b&metadata[n]=4"), [ids[4]]);
    assert.deepEqual(await all("metadata[batch]=c"), []);
    const got = await h.app.request(`/v1/runs/${ids[2]}`, { headers: bearer(key) });
    assert.deepEqual(((await got.json()) as { metadata: unknown }).metadata, { batch: "a", n: "2" });
    assert.equal((await h.app.request("/v1/runs?metadata[a%20b]=x", { headers: bearer(key) })).status, 400, "a key no run could hold");
  });

  test("metadata over its bounds is a 422 naming the place; a run without metadata shows {}", async () => {
    const over = async (metadata: unknown, path: RegExp) => {
      const res = await h.app.request("/v1/runs", postJson(key, { offline: true, metadata }));
      assert.equal(res.status, 422, await res.clone().text());
      const body = (await res.json()) as { issues: { path: string }[] };
      assert.ok(body.issues.some((i) => path.test(i.path)), JSON.stringify(body.issues));
    };
    await over(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])), /^body\.metadata$/);
    await over({ ["k".repeat(65)]: "v" }, /^body\.metadata/);
    await over({ "bad key": "v" }, /^body\.metadata/);
    await over({ long: "v".repeat(513) }, /^body\.metadata\.long$/);
    const ok = await h.app.request("/v1/runs", postJson(key, { offline: true, metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(64, "x"), "v".repeat(512)])) }));
    assert.equal(ok.status, 201, "at the bounds is accepted");
    const bare = (await (await h.app.request("/v1/runs", postJson(key, { offline: true }))).json()) as { metadata: unknown };
    assert.deepEqual(bare.metadata, {});
    assert.equal((await h.app.request("/v1/runs", postJson(key, { offline: true, metadata: { n: 1 } }))).status, 400, "a value that is not a string is malformed");
  });
}));
