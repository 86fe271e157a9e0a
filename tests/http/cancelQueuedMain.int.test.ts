import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson } from "./harness.ts";

// Issue 18.5: the view of a queued run lists Main (running); cancelling that executor cancels the run.
forEachEngine("cancelling Main of a queued run", (ctx) => describe("cancel", () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await openHarness(ctx.store, { workers: false });
    key = await h.key("client", h.tenant("cq"));
  });
  after(() => h.close());

  test("POST /v1/runs/{id}/executors/{main}/cancel on a queued run cancels the run (202), as the run's cancel does", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(key, { offline: true, context: "never started" }))).json()) as any;
    assert.equal(run.state, "queued");
    assert.equal(run.executors.id, run.mainExecutorId, "the view lists Main before it is admitted");
    const res = await h.app.request(`/v1/runs/${run.id}/executors/${run.mainExecutorId}/cancel`, postJson(key, {}));
    assert.equal(res.status, 202, await res.clone().text());
    const after = (await (await h.app.request(`/v1/runs/${run.id}`, { headers: bearer(key) })).json()) as any;
    assert.equal(after.state, "cancelled");
    assert.equal(after.executors.status, "cancelled");
    const again = await h.app.request(`/v1/runs/${run.id}/executors/${run.mainExecutorId}/cancel`, postJson(key, {}));
    assert.equal(again.status, 409);
  });
}));
