import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson, waitForFinal } from "./harness.ts";

/**
 * A page of `GET /v1/runs` folds its runs' events from one read of them all
 * (store.readRuns, http/runs/leasedRuns.ts), not a projection per run: each
 * item must still be exactly what `GET /v1/runs/{id}` answers for that run.
 * Read from a second server over the same store, so nothing comes from the
 * first one's cache of finished views and the page is cold.
 */
forEachEngine("GET /v1/runs: a cold page's items are the runs as GET /v1/runs/{id} answers them", (ctx) => describe("list matches get", () => {
  let h: Harness;
  let cold: Harness;
  let tenant: string;
  const ids: string[] = [];
  before(async () => {
    h = await openHarness(ctx.store);
    tenant = h.tenant("listget");
    const key = await h.key("client", tenant);
    for (let i = 0; i < 3; i++) {
      const res = await h.app.request("/v1/runs", postJson(key, { offline: true, metadata: { n: String(i) } }));
      assert.equal(res.status, 201, await res.clone().text());
      ids.push(((await res.json()) as { id: string }).id);
    }
    for (const id of ids) await waitForFinal(h.app, key, id);
    cold = await openHarness(ctx.store, { workers: false });
  });
  after(async () => {
    await cold?.close();
    await h?.close();
  });

  test("every item, settled runs with executors, budget and answer, equals the run read alone", async () => {
    const key = await cold.key("client", tenant);
    const page = (await (await cold.app.request("/v1/runs?limit=200", { headers: bearer(key) })).json()) as { data: Record<string, any>[] };
    assert.deepEqual(page.data.map((r) => r.id).sort(), [...ids].sort());
    for (const item of page.data) {
      assert.equal(item.state, "settled");
      assert.ok(item.executors.children.length > 0 && item.answer !== null && item.budget.turns > 0, "a run with events to fold");
      const alone = (await (await cold.app.request(`/v1/runs/${item.id}`, { headers: bearer(key) })).json()) as Record<string, any>;
      assert.deepEqual(item, alone);
    }
  });
}));
