import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type RunningServer, startServer } from "../../http/startServer.ts";
import { type Harness, bearer, openHarness, postJson } from "./harness.ts";

/**
 * A live stream's slot is given back when its client goes away (issue 33,
 * item 7), not at the next heartbeat or read: with one stream a key, a client
 * that disconnects can open its next stream straight after. Over a real socket
 * (app.request has no disconnect). The heartbeat is set far out (60 s), so only
 * the disconnect itself can free the slot within the test.
 */
forEachEngine("a live stream's slot is freed when its client disconnects", (ctx) => describe("slot release", () => {
  let h: Harness;
  let server: RunningServer;
  let url: string;
  before(async () => {
    h = await openHarness(ctx.store, { workers: false, heartbeatMs: 60_000, limits: { streamsPerKey: 1, failedAuth: { perSecond: 10_000, burst: 10_000 } } });
    server = await startServer(h.app.fetch, { port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server.close(100);
    await h.close();
  });

  test("a key at its one stream disconnects, then opens another: 200, not 429", { timeout: 60_000 }, async () => {
    const key = await h.key("client", h.tenant("slots"));
    const created = await h.app.request("/v1/runs", postJson(key, { offline: true }));
    const { id } = (await created.json()) as { id: string };
    const events = `${url}/v1/runs/${id}/events`;
    const openStream = async () => {
      const abort = new AbortController();
      const res = await fetch(events, { headers: bearer(key, { accept: "text/event-stream" }), signal: abort.signal });
      if (res.status !== 200) await res.body?.cancel();
      return { status: res.status, close: () => abort.abort() };
    };
    let open = await openStream();
    assert.equal(open.status, 200);
    for (let round = 0; round < 3; round++) {
      assert.equal((await openStream()).status, 429, "one stream a key while it is open");
      open.close();
      // The server hears of the disconnect when the socket closes: a few looks, well under the 60 s heartbeat.
      for (let i = 0; i < 100; i++) {
        open = await openStream();
        if (open.status !== 429) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(open.status, 200, `round ${round}: the slot was not given back after the client went away`);
    }
    open.close();
  });
}));
