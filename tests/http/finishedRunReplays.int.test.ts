import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { sql } from "kysely";
import { type Checkpoint, START } from "../../events/index.ts";
import { startEventHub } from "../../http/live/eventHub.ts";
import { finishedRunReplays } from "../../http/live/finishedRunReplays.ts";
import { END_OF_LOG, readRunEvents } from "../../events/readRunEvents.ts";
import { endFrame, eventFrame } from "../../http/live/sseFrame.ts";
import { streamRunEvents } from "../../http/live/streamRunEvents.ts";
import { renderEvent } from "../../http/renderEvent.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { bearer, openHarness } from "./harness.ts";

const decode = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

forEachEngine("finished runs' SSE replays from memory", (ctx) => describe("replays", () => {
  let runIds: string[] = [];

  async function finishedRuns(): Promise<string[]> {
    if (runIds.length) return runIds;
    const h = await openHarness(ctx.store);
    try {
      const runs = await Promise.all(["one", "two", "three"].map((q) => h.runs.submit({ offline: true, context: `replay ${q}` }, "t-replay")));
      runIds = runs.map((r) => r.id);
      // Finished once its host sealed it and finished its row.
      for (let i = 0; i < 1200; i++) {
        const rows = await sql<{ state: string }>`SELECT state FROM ariadne_runs WHERE run_id IN (${sql.join(runIds)})`.execute(ctx.store.database.db);
        if (rows.rows.every((r) => r.state === "finished")) return runIds;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("runs did not finish");
    } finally {
      await h.close();
    }
  }

  /** What the stream from the log sends after `from`: the bytes a replay must equal (no heartbeat: a slow machine would slip one in). */
  async function streamedFromLog(runId: string, from: Checkpoint): Promise<string> {
    const hub = await startEventHub(ctx.store);
    try {
      const app = new Hono();
      app.get("/s", (c) => streamSSE(c, (s) => streamRunEvents(s, { database: ctx.store.database, hub, runId, from, heartbeatMs: 600_000, signal: AbortSignal.timeout(30_000) })));
      return await (await app.request("/s")).text();
    } finally {
      await hub.close();
    }
  }

  test("a replay sends the same bytes as the stream from the log, from the start and after any event; an unknown position is null", { timeout: 120_000 }, async () => {
    const [runId] = await finishedRuns();
    const { events, checkpoints } = await readRunEvents(ctx.store.database, runId, START, { limit: 10_000, upTo: END_OF_LOG });
    assert.ok(events.length > 10);
    const replay = (await finishedRunReplays(ctx.store.database).of(runId))!;
    assert.ok(replay);
    assert.equal(decode(replay.after(0)), await streamedFromLog(runId, START));
    for (const i of [0, 4, events.length - 1]) {
      assert.equal(decode(replay.after(events[i].globalPosition)), await streamedFromLog(runId, checkpoints[i]), `after event ${i}`);
    }
    assert.match(decode(replay.after(events.at(-1)!.globalPosition))!, /^event: end\ndata: \{"runId":"[^"]+"\}\n\n$/);
    assert.equal(replay.after(999_999_999), null);
  });

  test("frames are byte for byte what hono's writeSSE writes (the wire format before frames were cached)", { timeout: 120_000 }, async () => {
    const [runId] = await finishedRuns();
    const { events } = await readRunEvents(ctx.store.database, runId, START, { limit: 10_000, upTo: END_OF_LOG });
    const app = new Hono();
    app.get("/w", (c) =>
      streamSSE(c, async (s) => {
        for (const e of events) await s.writeSSE({ id: String(e.globalPosition), event: e.type, data: JSON.stringify(renderEvent(e)) });
        await s.writeSSE({ event: "end", data: JSON.stringify({ runId }) });
      }),
    );
    assert.equal(events.map(eventFrame).join("") + endFrame(runId), await (await app.request("/w")).text());
  });

  test("a run whose row is not finished has no replay (it may still grow)", { timeout: 60_000 }, async () => {
    const h = await openHarness(ctx.store, { workers: false });
    try {
      const run = await h.runs.submit({ offline: true, context: "never hosted" }, "t-replay");
      assert.equal(await finishedRunReplays(ctx.store.database).of(run.id), null);
    } finally {
      await h.close();
    }
  });

  test("bounded: the least recently replayed run is dropped past the cap, a run above the per-run cap is not kept", { timeout: 120_000 }, async () => {
    const [a, b, c] = await finishedRuns();
    const sizes = new Map<string, number>();
    const all = finishedRunReplays(ctx.store.database);
    for (const id of [a, b, c]) sizes.set(id, (await all.of(id))!.bytes);
    // Room for all three but one byte.
    const replays = finishedRunReplays(ctx.store.database, { maxBytes: sizes.get(a)! + sizes.get(b)! + sizes.get(c)! - 1, maxRunBytes: Infinity });
    const first = (await replays.of(a))!;
    const second = (await replays.of(b))!;
    assert.equal(await replays.of(a), first, "kept: the same replay again");
    await replays.of(c); // over the cap: b, least recently replayed, goes
    assert.equal(await replays.of(a), first);
    const again = await replays.of(b);
    assert.notEqual(again, second, "b was dropped and read again");
    assert.equal(decode(again!.after(0)), decode(second.after(0)));

    const small = finishedRunReplays(ctx.store.database, { maxRunBytes: sizes.get(a)! / 2 });
    assert.equal(await small.of(a), null);
  });

  test("over HTTP: a finished run's stream and its resumption from Last-Event-ID are the log's bytes; a position not in the run is 400", { timeout: 120_000 }, async () => {
    const [runId] = await finishedRuns();
    const { events, checkpoints } = await readRunEvents(ctx.store.database, runId, START, { limit: 10_000, upTo: END_OF_LOG });
    const h = await openHarness(ctx.store, { workers: false });
    try {
      const k = await h.key("client", "t-replay");
      const sse = (extra: Record<string, string> = {}) => ({ headers: bearer(k, { accept: "text/event-stream", ...extra }) });
      for (let round = 0; round < 2; round++) {
        const whole = await h.app.request(`/v1/runs/${runId}/events`, sse());
        assert.equal(whole.headers.get("content-type"), "text/event-stream");
        assert.equal(await whole.text(), await streamedFromLog(runId, START));
        const resumed = await h.app.request(`/v1/runs/${runId}/events`, sse({ "last-event-id": String(events[6].globalPosition) }));
        assert.equal(await resumed.text(), await streamedFromLog(runId, checkpoints[6]));
        assert.equal((await h.app.request(`/v1/runs/${runId}/events`, sse({ "last-event-id": "999999999" }))).status, 400);
      }
    } finally {
      await h.close();
    }
  });
}));
