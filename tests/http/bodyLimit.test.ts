import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";
import { type RunningServer, startServer } from "../../http/startServer.ts";

// No route here reaches the database: auth is off, and the refused bodies never get past the limit.
const deps = { auth: "none", database: {}, runs: {}, reads: {}, hub: {}, maxBodyBytes: 1024, log: () => {} } as unknown as AppDeps;

let server: RunningServer;
let base: string;
before(async () => {
  server = await startServer(createApp(deps).fetch, { port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${server.port}`;
});
after(() => server.close(100));

const big = JSON.stringify({ question: "x".repeat(256 * 1024) });

test("a client always gets its 413 (problem+json with the request id), and the next request on the connection is answered", async () => {
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${base}/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: big, signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 413, `over-limit POST ${i + 1}`);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    const problem = (await res.json()) as Record<string, unknown>;
    assert.equal(problem.requestId, res.headers.get("x-request-id"));
  }
  const res = await fetch(`${base}/healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
});

test("a body over the limit sent without Content-Length (chunked) is 413 too", async () => {
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 64; i++) controller.enqueue(new TextEncoder().encode("x".repeat(4096)));
      controller.close();
    },
  });
  const res = await fetch(`${base}/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: chunks, duplex: "half" } as RequestInit);
  assert.equal(res.status, 413);
  await res.body?.cancel();
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
});
