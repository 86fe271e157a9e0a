import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, openHarness, postJson } from "./harness.ts";

forEachEngine("POST /v1/runs with singleAgent", (ctx) => describe("singleAgent", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness(ctx.store, { workers: false });
  });
  after(() => h.close());

  test("recorded in the run's options, checked by runs/planRun as --single-agent is", async () => {
    const key = await h.key("client", h.tenant("single"));
    const created = await h.app.request("/v1/runs", postJson(key, { offline: true, singleAgent: true }));
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const [submitted] = (await ctx.store.readRun(id)).filter((e) => e.type === "run_submitted");
    assert.equal((submitted!.data as { options: Record<string, unknown> }).options.singleAgent, true);
  });

  test("with options that need Children: 422 naming each field of the body, and no run", async () => {
    const key = await h.key("client", h.tenant("single-refused"));
    const res = await h.app.request("/v1/runs", postJson(key, { offline: true, singleAgent: true, allowedProfiles: ["web-explorer"], reviewer: "advisory", caps: { maxDepth: 1 } }));
    assert.equal(res.status, 422, await res.clone().text());
    const body = (await res.json()) as { issues: { path: string }[] };
    assert.deepEqual(body.issues.map((i) => i.path).sort(), ["body.allowedProfiles", "body.caps.maxDepth", "body.reviewer"]);
    const list = (await (await h.app.request("/v1/runs", { headers: { authorization: `Bearer ${key}` } })).json()) as { runs?: unknown[]; items?: unknown[] };
    assert.equal((list.runs ?? list.items ?? []).length, 0);
  });
}));
