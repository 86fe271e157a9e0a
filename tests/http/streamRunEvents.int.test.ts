import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { START } from "../../events/index.ts";
import type { EventHub, Listener } from "../../http/live/eventHub.ts";
import { END_OF_LOG, readRunEvents } from "../../events/readRunEvents.ts";
import { streamRunEvents } from "../../http/live/streamRunEvents.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { openHarness, sseFrames } from "./harness.ts";

/** A hub that reports a horizon behind the client and replays the run's events itself, as a lagging hub would. */
function laggingHub(events: Parameters<Listener>[0][]): EventHub {
  return {
    attach(_runId, listener) {
      setTimeout(() => events.forEach(listener), 20);
      return { horizon: async () => START, detach() {} };
    },
    health: () => ({ ok: true }),
    close: async () => {},
  };
}

forEachEngine("live stream when the client is ahead of the hub", (ctx) => describe("stream", () => {
  test("events the client already has are skipped; the rest arrive once, then `end`", { timeout: 60_000 }, async () => {
    const h = await openHarness(ctx.store);
    const run = await h.runs.submit({ offline: true, context: "ahead" }, "t-ahead");
    // Final once its host sealed it and finished its row.
    for (let i = 0; i < 1200 && !["settled", "failed", "cancelled"].includes((await h.runs.get(null, run.id))!.state); i++) await new Promise((r) => setTimeout(r, 50));
    await h.close();
    // Every event of the stopped run: without `upTo`, a read stops below the oldest transaction still open in
    // the cluster (any other test's), and a hub replaying fewer events than the log holds never sees the end.
    const { events, checkpoints } = await readRunEvents(ctx.store.database, run.id, START, { limit: 1000, upTo: END_OF_LOG });
    assert.ok(events.length > 10);

    const from = checkpoints[4];
    const app = new Hono();
    app.get("/s", (c) => streamSSE(c, (s) => streamRunEvents(s, { database: ctx.store.database, hub: laggingHub(events), runId: run.id, from, heartbeatMs: 50, signal: AbortSignal.timeout(30_000) })));
    const got: number[] = [];
    let ended = false;
    for await (const frame of sseFrames((await app.request("/s")).body!)) {
      if (frame.event === "end") {
        ended = true;
        break;
      }
      if (frame.id) got.push(Number(frame.id));
    }
    assert.ok(ended);
    assert.deepEqual(got, events.slice(5).map((e) => e.globalPosition));
  });
}));
