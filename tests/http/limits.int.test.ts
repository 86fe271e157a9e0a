import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { revokeApiKey, createApiKey } from "../../db/apiKeys.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson } from "./harness.ts";

const SSE = { accept: "text/event-stream" };

async function limited(res: Response, limit: RegExp): Promise<void> {
  assert.equal(res.status, 429, await res.clone().text());
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const body = (await res.json()) as { detail: string };
  assert.match(body.detail, limit);
  assert.ok(Number(res.headers.get("retry-after")) >= 1, "Retry-After");
  assert.ok(res.headers.get("ratelimit-policy"), "RateLimit-Policy");
  assert.match(res.headers.get("ratelimit") ?? "", /r=0/, "RateLimit says none left");
}

// Issue 18.4: limits across requests, per key and per tenant.
forEachEngine("limits per key and per tenant", (ctx) => describe("limits", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness(ctx.store, {
      workers: false,
      heartbeatMs: 100,
      limits: { failedAuth: { perSecond: 10_000, burst: 10_000 }, streamsPerKey: 2, streamsPerTenant: 3, queuedRunsPerKey: 2, queuedRunsPerTenant: 3, revocationCheckMs: 200 },
    });
  });
  after(() => h.close());

  test("concurrent SSE streams: a key's third and a tenant's fourth are 429 naming the limit; a closed stream frees its slot", async () => {
    const tenant = h.tenant("streams");
    const [a1, a2] = [await h.key("client", tenant), await h.key("client", tenant)];
    // A queued run (no worker here): its stream stays open, sending heartbeats. Submitted by a third key of the tenant.
    const run = (await (await h.app.request("/v1/runs", postJson(await h.key("client", tenant), { offline: true, context: "held open" }))).json()) as any;
    const open = async (k: string) => {
      const controller = new AbortController();
      const res = await h.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(k, SSE), signal: controller.signal });
      return { res, close: () => controller.abort() };
    };
    const s1 = await open(a1);
    const s2 = await open(a1);
    assert.equal(s1.res.status, 200);
    assert.equal(s2.res.status, 200);
    await limited((await open(a1)).res, /streams per key \(2\)/);
    const s3 = await open(a2);
    assert.equal(s3.res.status, 200);
    await limited((await open(a2)).res, /streams per tenant \(3\)/);
    s1.close();
    await s1.res.body?.cancel().catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    const s4 = await open(a2);
    assert.equal(s4.res.status, 200, "the closed stream's slot is free again");
    for (const s of [s2, s3, s4]) {
      s.close();
      await s.res.body?.cancel().catch(() => {});
    }
  });

  test("queued runs: a key's third and a tenant's fourth submission are 429 naming the limit", async () => {
    const tenant = h.tenant("queue");
    const [k1, k2] = [await h.key("client", tenant), await h.key("client", tenant)];
    for (let i = 0; i < 2; i++) assert.equal((await h.app.request("/v1/runs", postJson(k1, { offline: true, context: `k1 ${i}` }))).status, 201);
    await limited(await h.app.request("/v1/runs", postJson(k1, { offline: true, context: "k1 over" })), /queued runs per key \(2\)/);
    assert.equal((await h.app.request("/v1/runs", postJson(k2, { offline: true, context: "k2 0" }))).status, 201);
    await limited(await h.app.request("/v1/runs", postJson(k2, { offline: true, context: "k2 over" })), /queued runs per tenant \(3\)/);
  });

  test("a revoked key's open stream ends within the revocation window", async () => {
    const tenant = h.tenant("revoke");
    const { keyId, token } = await createApiKey(ctx.store.database, { role: "client", tenant });
    const run = (await (await h.app.request("/v1/runs", postJson(token, { offline: true, context: "watched" }))).json()) as any;
    const res = await h.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(token, SSE) });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    await revokeApiKey(ctx.store.database, keyId);
    // The run is queued and no worker runs here: without the revocation the stream would send heartbeats
    // forever, so its end is the revocation's doing. The bound is 150 revocation checks (200 ms each), so a
    // loaded machine cannot fail it; what it catches is a stream the sweep never ends.
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return true;
    })();
    const timedOut = new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref());
    assert.equal(await Promise.race([ended, timedOut]), true, "the revoked key's stream ended");
  });

  test("failed authentication is limited per client address: 429 once its failures are spent", async () => {
    const strict = await openHarness(ctx.store, { workers: false, limits: { failedAuth: { perSecond: 0.01, burst: 3 } } });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await strict.app.request("/v1/runs", { headers: bearer(`ariadne_wrong${i}`) })).status, 401);
      await limited(await strict.app.request("/v1/runs", { headers: bearer("ariadne_wrong4") }), /failed authentication/);
    } finally {
      await strict.close();
    }
  });
}));
