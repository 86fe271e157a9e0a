import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { reportOfEvents } from "../../projections/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, settledOfflineRun } from "./harness.ts";

forEachEngine("GET /v1/runs/{id}/report: what a run spent", (ctx) => describe("report", () => {
  let h: Harness;
  let client: string;
  let runId: string;
  before(async () => {
    h = await openHarness(ctx.store);
    ({ client, runId } = await settledOfflineRun(h));
  });
  after(() => h.close());

  const get = (path: string, key = client) => h.app.request(path, { headers: bearer(key) });

  test("the report the command line prints, per executor its stream's turns and tokens", async () => {
    const res = await get(`/v1/runs/${runId}/report`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    const events = await ctx.store.readRun(runId);
    // The same projection as `ariadne report --json`, through JSON.
    assert.deepEqual(body, JSON.parse(JSON.stringify(reportOfEvents(runId, events))));
    assert.equal(body.executors.length, events.filter((e) => e.type === "executor_admitted").length);
    for (const e of body.executors) {
      const turns = events.filter((x): x is RecordedEvent<"turn"> => x.type === "turn" && x.streamId === `executor-${e.executorId}`);
      assert.equal(e.turns, turns.length);
      assert.equal(e.tokens.input, turns.reduce((s, t) => s + t.data.usage.inputTokens, 0));
    }
    assert.ok(body.isolation.children >= 1 && body.isolation.mainContextTokens > 0);
    assert.equal(body.run.tokens.estimated, true);
  });

  test("another tenant's run and an unknown run are 404; a malformed id a 400 naming the parameter", async () => {
    const other = await h.key("client", h.tenant());
    assert.equal((await get(`/v1/runs/${runId}/report`, other)).status, 404);
    assert.equal((await get("/v1/runs/00000000-0000-0000-0000-000000000000/report")).status, 404);
    const bad = await get("/v1/runs/not%20an%20id/report");
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).issues[0].path, "path.id");
    assert.equal((await h.app.request(`/v1/runs/${runId}/report`)).status, 401);
  });

  test("the route is in the OpenAPI document with its schema", async () => {
    const doc = (await (await h.app.request("/openapi.json")).json()) as any;
    assert.equal(doc.paths["/v1/runs/{id}/report"].get.operationId, "getRunReport");
    assert.ok(doc.components.schemas.RunReport.properties.isolation);
    assert.ok(doc.components.schemas.ExecutorReport.properties.limits);
  });
}));
