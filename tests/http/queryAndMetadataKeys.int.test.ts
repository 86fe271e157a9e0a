import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness } from "./harness.ts";

/**
 * Names a JavaScript object treats specially are refused as metadata keys
 * (issue 33, item 7), where before they were silently dropped on the way in and
 * matched every run on the way out; a query parameter given twice is refused
 * naming it, not read as NaN.
 */
forEachEngine("reserved metadata keys and repeated query parameters", (ctx) => describe("refused clearly", () => {
  let h: Harness;
  let key: string;
  let runId: string;
  before(async () => {
    h = await openHarness(ctx.store, { workers: false });
    key = await h.key("client", h.tenant("reserved"));
    const res = await h.app.request("/v1/runs", { method: "POST", headers: bearer(key, { "content-type": "application/json" }), body: JSON.stringify({ offline: true, metadata: { team: "a" } }) });
    assert.equal(res.status, 201);
    runId = ((await res.json()) as { id: string }).id;
  });
  after(() => h.close());

  for (const reserved of ["__proto__", "constructor", "prototype"]) {
    test(`metadata key ${reserved} in a body is a 422 naming body.metadata.${reserved}; nothing is recorded`, async () => {
      const before = ((await (await h.app.request("/v1/runs?limit=200", { headers: bearer(key) })).json()) as { data: unknown[] }).data.length;
      // Written by hand: JSON.stringify of an object literal would not carry an own __proto__ key.
      const body = `{"offline": true, "metadata": {"${reserved}": "x", "team": "b"}}`;
      const res = await h.app.request("/v1/runs", { method: "POST", headers: bearer(key, { "content-type": "application/json" }), body });
      assert.equal(res.status, 422, await res.clone().text());
      const problem = (await res.json()) as { issues: { path: string }[] };
      assert.deepEqual(problem.issues.map((i) => i.path), [`body.metadata.${reserved}`]);
      const after = ((await (await h.app.request("/v1/runs?limit=200", { headers: bearer(key) })).json()) as { data: unknown[] }).data.length;
      assert.equal(after, before, "no run recorded");
    });

    test(`?metadata[${reserved}]=x is a 400 naming it, not every run`, async () => {
      const res = await h.app.request(`/v1/runs?metadata[${reserved}]=x`, { headers: bearer(key) });
      assert.equal(res.status, 400, await res.clone().text());
      assert.match(((await res.json()) as { detail: string }).detail, new RegExp(`metadata\\[${reserved}\\]`));
    });
  }

  for (const [path, name] of [["/v1/runs?limit=5&limit=6", "limit"], ["/v1/runs?order=asc&order=desc", "order"], ["/v1/runs/RUN?wait=1&wait=2", "wait"]] as const) {
    test(`${name} given twice is a 400 naming ${name}`, async () => {
      const res = await h.app.request(path.replace("RUN", runId), { headers: bearer(key) });
      assert.equal(res.status, 400, await res.clone().text());
      const problem = (await res.json()) as { detail: string; issues: { path: string; message: string }[] };
      assert.deepEqual(problem.issues.map((i) => i.path), [`query.${name}`]);
      assert.match(problem.detail, new RegExp(`${name}.*once`));
      assert.doesNotMatch(problem.detail, /NaN/);
    });
  }
}));
