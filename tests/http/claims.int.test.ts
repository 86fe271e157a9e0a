import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, settledOfflineRun } from "./harness.ts";

forEachEngine("GET /v1/runs/{id}/claims: each claim's provenance", (ctx) => describe("claims", () => {
  let h: Harness;
  let client: string;
  let runId: string;
  before(async () => {
    h = await openHarness(ctx.store);
    ({ client, runId } = await settledOfflineRun(h));
  });
  after(() => h.close());

  const get = (path: string) => h.app.request(path, { headers: bearer(client) });

  test("lists every claim of the answer; each observed one reaches a quote in a blob its tool call read", async () => {
    const res = await get(`/v1/runs/${runId}/claims`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.runId, runId);
    assert.match(body.answer.hash, /^[0-9a-f]{64}$/);
    assert.deepEqual(body.claims.map((c: any) => c.id), body.claims.map((_: unknown, i: number) => `c${i + 1}`));
    const observed = body.claims.filter((c: any) => c.basis === "observed");
    assert.ok(observed.length >= 5);
    for (const claim of observed) {
      for (const f of claim.findings) {
        assert.deepEqual(f.problems, []);
        assert.match(f.child.profile.sha256, /^[0-9a-f]{64}$/);
        assert.ok(f.turn.requestDigest && f.turn.event.hash, "the model turn that wrote it");
        assert.ok(f.quotes.length > 0, `a quote behind ${claim.id}`);
        for (const q of f.quotes) assert.ok(q.source && q.blob && q.call.intent && q.call.outcome.type === "tool_completed");
      }
    }
    for (const claim of body.claims.filter((c: any) => c.basis !== "observed")) assert.match(claim.noEvidence, /judgment|not collected/);
  });

  test("one claim by id; an unknown id is 404, a malformed one a 400 naming the parameter", async () => {
    const one = (await (await get(`/v1/runs/${runId}/claims/c1`)).json()) as any;
    assert.equal(one.claim.id, "c1");
    const missing = await get(`/v1/runs/${runId}/claims/c999`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as any).detail, /has no claim c999: its claims are c1…c\d+/);
    const bad = await get(`/v1/runs/${runId}/claims/first`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).issues[0].path, "path.cid");
    assert.equal((await get(`/v1/runs/00000000-0000-0000-0000-000000000000/claims`)).status, 404);
  });

  test("the routes are in the OpenAPI document with their schemas", async () => {
    const doc = (await (await h.app.request("/openapi.json")).json()) as any;
    assert.ok(doc.paths["/v1/runs/{id}/claims"].get);
    assert.ok(doc.paths["/v1/runs/{id}/claims/{cid}"].get);
    assert.ok(doc.components.schemas.Claim.properties.findings);
  });
}));
