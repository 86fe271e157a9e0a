import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import * as runStatusMigration from "../../migrations/0011_run_status.ts";
import { submitRun, takeLease } from "../../runs/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson } from "./harness.ts";

const QUEUED = 1_500;

/** Every page of a filtered list, following `next_cursor` until it is null. */
async function allPages(h: Harness, key: string, query: string): Promise<{ ids: string[]; states: string[]; pages: number }> {
  const ids: string[] = [];
  const states: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await h.app.request(`/v1/runs?${query}${cursor ? `&cursor=${cursor}` : ""}`, { headers: bearer(key) });
    assert.equal(res.status, 200, await res.clone().text());
    const page = (await res.json()) as { data: { id: string; state: string }[]; has_more: boolean; next_cursor: string | null };
    ids.push(...page.data.map((r) => r.id));
    states.push(...page.data.map((r) => r.state));
    assert.equal(page.has_more, page.next_cursor !== null);
    cursor = page.next_cursor;
    pages++;
    assert.ok(pages < 100, "paging ends");
  } while (cursor);
  return { ids, states, pages };
}

// Issue 18: 4 running and 5 cancelled runs older than ~1,500 queued ones; the filter must find them at once.
forEachEngine("GET /v1/runs?state= over many runs of other states", (ctx) => describe("list", () => {
  let h: Harness;
  let key: string;
  const running: string[] = [];
  const cancelled: string[] = [];
  before(async () => {
    // No worker: the queued runs stay queued, the leases below are the only ones.
    h = await openHarness(ctx.store, { workers: false });
    const tenant = h.tenant("many");
    key = await h.key("client", tenant);
    for (let i = 0; i < 4; i++) {
      const run = await h.runs.submit({ offline: true, context: `running ${i}` }, tenant);
      assert.ok(await takeLease(ctx.store.database, { owner: "test-host", ttlMs: 600_000, runId: run.id }));
      running.unshift(run.id);
    }
    for (let i = 0; i < 5; i++) {
      const run = await h.runs.submit({ offline: true, context: `cancelled ${i}` }, tenant);
      assert.equal((await h.app.request(`/v1/runs/${run.id}/cancel`, postJson(key, {}))).status, 202);
      cancelled.unshift(run.id);
    }
    // Submitted in parallel (group commit shares the appends), then made newer than the runs above.
    for (let i = 0; i < QUEUED; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, QUEUED - i) }, (_, j) => submitRun(ctx.store, { question: `queued ${i + j}`, options: { mode: "offline" }, tenant })));
    }
    await sql`UPDATE ariadne_runs SET created_at = now() + interval '1 hour' + random() * interval '1 minute'
              WHERE tenant = ${tenant} AND state = 'submitted'`.execute(ctx.store.database.db);
  });
  after(() => h.close());

  // How fast the filtered page answers against the queue's size is bench/httpList.ts's (a ratio, measured in one run).
  test("state=running finds the 4 running runs older than 1,500 queued ones, with next_cursor null", async () => {
    const res = await h.app.request("/v1/runs?state=running&limit=50", { headers: bearer(key) });
    assert.equal(res.status, 200, await res.clone().text());
    const page = (await res.json()) as { data: { id: string; state: string }[]; has_more: boolean; next_cursor: string | null };
    assert.deepEqual(page.data.map((r) => r.id), running);
    assert.ok(page.data.every((r) => r.state === "running"));
    assert.equal(page.next_cursor, null);
    assert.equal(page.has_more, false);
  });

  test("state=cancelled&limit=1 pages through all 5 cancelled runs, one a page, next set while any remain", async () => {
    const { ids, states, pages } = await allPages(h, key, "state=cancelled&limit=1");
    assert.deepEqual(ids, cancelled);
    assert.ok(states.every((s) => s === "cancelled"));
    assert.equal(pages, 5, "the fifth page says next: null, no empty sixth page");
  });

  test("state=queued pages through every queued run exactly once, newest first", async () => {
    const { ids, states } = await allPages(h, key, "state=queued&limit=200");
    assert.equal(ids.length, QUEUED);
    assert.equal(new Set(ids).size, QUEUED, "no run twice");
    assert.ok(states.every((s) => s === "queued"));
  });

  test("no filter: every run once, and next_cursor is set on a full page while rows remain", async () => {
    const first = (await (await h.app.request("/v1/runs?limit=50", { headers: bearer(key) })).json()) as { data: unknown[]; has_more: boolean; next_cursor: string | null };
    assert.equal(first.data.length, 50);
    assert.ok(first.next_cursor);
    assert.equal(first.has_more, true);
    const last = (await (await h.app.request(`/v1/runs?state=settled&limit=5`, { headers: bearer(key) })).json()) as { data: unknown[]; next_cursor: string | null };
    assert.deepEqual(last, { data: [], has_more: false, next_cursor: null, order: "desc" });
  });

  test("the migration backfills the status of runs recorded before it", async () => {
    const db = ctx.store.database.db;
    const statuses = async () => (await sql<{ run_id: string; status: string }>`SELECT run_id, status FROM ariadne_runs ORDER BY run_id`.execute(db)).rows;
    const before = await statuses();
    assert.ok(before.some((r) => r.status === "cancelled") && before.some((r) => r.status === "running"));
    await runStatusMigration.down(db);
    await runStatusMigration.up(db);
    assert.deepEqual(await statuses(), before);
  });
}));
