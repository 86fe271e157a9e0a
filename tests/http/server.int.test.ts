import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createApiKey } from "../../db/apiKeys.ts";
import { type ApiServer, openApiServer } from "../../http/openApiServer.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { bearer, sseFrames } from "./harness.ts";

forEachEngine("the API through a real listening server", (ctx) => describe("node server", () => {
  let api: ApiServer;
  let base: string;
  let key: string;
  before(async () => {
    api = await openApiServer({ store: ctx.store, port: 0, host: "127.0.0.1", scriptedLatencyMs: 40, log: () => {}, keyCacheMs: 0, heartbeatMs: 200 });
    base = `http://127.0.0.1:${api.server.port}`;
    key = (await createApiKey(ctx.store.database, { role: "client", tenant: uniqueId("srv") })).token;
  });
  after(() => api.close({ graceMs: 2_000 }));

  const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { ...bearer(key), ...(init.headers as object) } });

  test("every route answers over the network: create, follow live with a resume, read, audit, cancel", async () => {
    const created = await call("/v1/runs", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "net-1" }, body: JSON.stringify({ offline: true, context: "over the wire" }) });
    assert.equal(created.status, 201);
    const run = (await created.json()) as any;
    const again = await call("/v1/runs", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "net-1" }, body: JSON.stringify({ offline: true, context: "over the wire" }) });
    assert.equal(((await again.json()) as any).id, run.id);

    // Live: read a few events, drop the connection, resume with Last-Event-ID until `end`.
    const seen: number[] = [];
    const first = await call(`/v1/runs/${run.id}/events`, { headers: { accept: "text/event-stream" } });
    for await (const f of sseFrames(first.body!)) {
      if (f.id) seen.push(Number(f.id));
      if (seen.length === 3) break;
    }
    let ended = false;
    while (!ended) {
      const res = await call(`/v1/runs/${run.id}/events`, { headers: { accept: "text/event-stream", "last-event-id": String(seen.at(-1)) } });
      let n = 0;
      for await (const f of sseFrames(res.body!)) {
        if (f.event === "end") ended = true;
        if (f.id) seen.push(Number(f.id));
        if (ended || ++n === 10) break;
      }
    }
    const page = (await (await call(`/v1/runs/${run.id}/events?limit=1000`)).json()) as any;
    assert.deepEqual(seen, page.events.map((e: any) => e.position), "every event exactly once, in log order");

    const view = (await (await call(`/v1/runs/${run.id}`)).json()) as any;
    assert.equal(view.state, "settled");
    assert.ok(view.answer);
    const listed = (await (await call("/v1/runs?state=settled")).json()) as any;
    assert.ok(listed.data.some((r: any) => r.id === run.id));
    const child = view.executors.children[0].id;
    assert.equal((await call(`/v1/runs/${run.id}/executors/${child}/transcript`)).status, 200);
    assert.equal((await call(`/v1/runs/${run.id}/executors/${child}/handoff`)).status, 200);
    assert.equal(((await (await call(`/v1/runs/${run.id}/verify`)).json()) as any).ok, true);
    assert.equal((await call(`/v1/runs/${run.id}/cancel`, { method: "POST" })).status, 409);
    assert.equal((await call(`/v1/runs/${run.id}/executors/${child}/cancel`, { method: "POST" })).status, 409);

    const stop = (await (await call("/v1/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "stop" }) })).json()) as any;
    assert.equal((await call(`/v1/runs/${stop.id}/cancel`, { method: "POST" })).status, 202);

    for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs", "/docs/swagger-ui.css"]) assert.equal((await fetch(`${base}${path}`)).status, 200, path);
    const bad = await call("/v1/runs", { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("content-type"), "application/problem+json");
    const big = await call("/v1/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "x".repeat(200_000) }) });
    assert.equal(big.status, 413);
  });

  test("a live stream open at shutdown ends, and the server stops accepting", async () => {
    const other = await openApiServer({ store: ctx.store, port: 0, host: "127.0.0.1", scriptedLatencyMs: 1_000, log: () => {}, heartbeatMs: 100 });
    const url = `http://127.0.0.1:${other.server.port}`;
    const run = (await (await fetch(`${url}/v1/runs`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "long" }) })).json()) as any;
    const res = await fetch(`${url}/v1/runs/${run.id}/events`, { headers: { ...bearer(key), accept: "text/event-stream" } });
    const frames = sseFrames(res.body!);
    assert.ok((await frames.next()).value, "the stream is open");
    const closing = other.close({ graceMs: 3_000 });
    // The stream ends (the client would resume elsewhere with Last-Event-ID) rather than holding shutdown.
    for await (const _ of frames) {
      /* drain until the server ends it */
    }
    await closing;
    await assert.rejects(fetch(`${url}/healthz`));
  });
}));
