import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createApiKey } from "../../db/apiKeys.ts";
import { type ApiServer, openApiServer } from "../../http/openApiServer.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { bearer, sseFrames } from "./harness.ts";

const runtime = "Deno" in globalThis ? "Deno (Deno.serve)" : "Node (@hono/node-server)";

// The same app under whichever runtime runs this file: `npm run test:deno` runs it under Deno.
forEachEngine(`smoke under ${runtime}`, (ctx) => describe("server", () => {
  let api: ApiServer;
  before(async () => {
    // Heartbeats ten minutes apart: the stream's end must follow the seal, not the next heartbeat (it once waited 15 s).
    api = await openApiServer({ store: ctx.store, port: 0, host: "127.0.0.1", log: () => {}, scriptedLatencyMs: 10, heartbeatMs: 600_000 });
  });
  after(() => api.close({ graceMs: 2_000 }));

  test("create a run, stream its events to the end, read its answer", { timeout: 120_000 }, async () => {
    const base = `http://127.0.0.1:${api.server.port}`;
    const key = (await createApiKey(ctx.store.database, { role: "client", tenant: uniqueId("smoke") })).token;
    const created = await fetch(`${base}/v1/runs`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "smoke" }) });
    assert.equal(created.status, 201);
    const run = (await created.json()) as any;

    const types: string[] = [];
    const stream = await fetch(`${base}/v1/runs/${run.id}/events`, { headers: { ...bearer(key), accept: "text/event-stream" } });
    for await (const frame of sseFrames(stream.body!)) {
      if (frame.event === "end") break;
      if (frame.event) types.push(frame.event);
    }
    assert.equal(types[0], "run_submitted");
    assert.ok(types.includes("settled"), types.join(", "));
    // The run's Checker checks the answer (check_completed), then the host seals the run.
    assert.deepEqual(types.slice(-2), ["check_completed", "run_sealed"], "the stream ends with the check and the seal");

    const final = (await (await fetch(`${base}/v1/runs/${run.id}`, { headers: bearer(key) })).json()) as any;
    assert.equal(final.state, "settled");
    assert.ok(Array.isArray(final.answer.sections) && final.answer.sections.length > 0);
  });
}), { endToEnd: true });
