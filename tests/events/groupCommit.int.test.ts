import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { ConcurrencyError, FencedError } from "../../core/errors.ts";
import { systemClock, randomId } from "../../core/clock.ts";
import { prepareAppend, sendAppends } from "../../events/appendToStream.ts";
import type { AppendResult } from "../../events/index.ts";
import { submitRun, takeLease } from "../../runs/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

/** Settles every promise; the outcomes in order. */
const settle = <T>(ps: Promise<T>[]) => Promise.allSettled(ps);

forEachEngine("group commit (appends made at once share a transaction)", (ctx) => {
  const db = () => ctx.db.database.db;
  const txIds = async (streams: string[]) => {
    const { rows } = await sql<{ tx: string }>`
      SELECT DISTINCT tx_id::text AS tx FROM ariadne_events WHERE stream_id = ANY(${streams}::text[])`.execute(db());
    return rows.map((r) => r.tx);
  };

  /** Appends that keep the batcher busy (more than one, to be sure), so the next ones wait and go together. */
  const occupy = (run: string) =>
    Promise.all([1, 2].map(() => {
      const s = uniqueId("gc-busy");
      return ctx.store.append(s, 0, [turnEvent(run, s, 1)]);
    }));

  test("20 appends made at once share commits; every stream is whole", async () => {
    const run = uniqueId("run");
    const streams = Array.from({ length: 20 }, (_, i) => uniqueId(`gc-${i}`));
    const results = await Promise.all(
      streams.map((s) => ctx.store.append(s, 0, [turnEvent(run, s, 1), turnEvent(run, s, 2)])),
    );
    // PostgreSQL: the first goes at once, alone, and the 19 that waited for it share the next call.
    // PGlite runs on this thread, so its batcher gathers for one turn of the event loop: one call.
    assert.equal((await txIds(streams)).length, ctx.engine === "postgres" ? 2 : 1);
    for (const [i, s] of streams.entries()) {
      const stored = await ctx.store.readStream(s);
      assert.deepEqual(stored.map((e) => e.eventId), results[i].events.map((e) => e.eventId));
      assert.deepEqual(stored.map((e) => e.globalPosition), results[i].positions);
      assert.deepEqual(stored.map((e) => e.hash), results[i].events.map((e) => e.hash));
      assert.equal((await ctx.store.verify(s)).ok, true);
      assert.equal(await ctx.store.streamVersion(s), 2);
    }
  });

  test("in one batch, a stale version fails that append alone: nothing of it is written, the others commit", async () => {
    const run = uniqueId("run");
    const [a, b, c] = [uniqueId("gc-a"), uniqueId("gc-b"), uniqueId("gc-c")];
    await ctx.store.append(b, 0, [turnEvent(run, b, 1)]);
    const busy = occupy(run);
    const [ra, rb, rc] = await settle([
      ctx.store.append(a, 0, [turnEvent(run, a, 1)]),
      ctx.store.append(b, 0, [turnEvent(run, b, 1, "stale")]), // b is at version 1
      ctx.store.append(c, 0, [turnEvent(run, c, 1)]),
    ]);
    await busy;
    assert.deepEqual(await txIds([a, c]).then((t) => t.length), 1, "a and c went in one call");
    assert.equal(ra.status, "fulfilled");
    assert.equal(rc.status, "fulfilled");
    assert.equal(rb.status, "rejected");
    const err = (rb as PromiseRejectedResult).reason;
    assert.ok(err instanceof ConcurrencyError, String(err));
    assert.equal(err.actualVersion, 1);
    assert.equal(await ctx.store.streamVersion(b), 1);
    assert.deepEqual((await ctx.store.readStream(b)).map((e) => (e.data as { response: { content: { text: string }[] } }).response.content[0].text), ["answer 1"]);
    assert.equal((await ctx.store.verify(b)).ok, true);
  });

  test("two appends to one stream at one version in one batch: exactly one wins, the other is told the new version", async () => {
    const run = uniqueId("run");
    const s = uniqueId("gc-same");
    // Holds the batcher busy so that both appends below wait and go in one call.
    const busy = occupy(run);
    const outcomes = await settle([
      ctx.store.append(s, 0, [turnEvent(run, s, 1, "one")]),
      ctx.store.append(s, 0, [turnEvent(run, s, 1, "two"), turnEvent(run, s, 2, "two")]),
    ]);
    await busy;
    assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected"]);
    const err = (outcomes[1] as PromiseRejectedResult).reason;
    assert.ok(err instanceof ConcurrencyError && err.actualVersion === 1, String(err));
    assert.equal(await ctx.store.streamVersion(s), 1);
    assert.equal((await ctx.store.verify(s)).ok, true);
  });

  test("in one batch, a stale fence and a foreign run's event fail their appends alone", async () => {
    const run = await submitRun(ctx.store, { question: "group commit fencing" });
    const old = await takeLease(ctx.db.database, { owner: "w1", ttlMs: 0, runId: run.runId });
    const now = await takeLease(ctx.db.database, { owner: "w2", ttlMs: 60_000, runId: run.runId });
    const [stale, foreign, owner, plain] = ["stale", "foreign", "owner", "plain"].map((k) => uniqueId(`gc-${k}`));
    const busy = occupy(run.runId);
    const outcomes = await settle([
      ctx.store.withFence({ runId: run.runId, epoch: old!.epoch }).append(stale, 0, [turnEvent(run.runId, stale, 1)]),
      ctx.store.withFence({ runId: run.runId, epoch: now!.epoch }).append(foreign, 0, [turnEvent("another-run", foreign, 1)]),
      ctx.store.withFence({ runId: run.runId, epoch: now!.epoch }).append(owner, 0, [turnEvent(run.runId, owner, 1)]),
      ctx.store.append(plain, 0, [turnEvent(run.runId, plain, 1)]),
    ]);
    await busy;
    assert.equal((await txIds([owner, plain])).length, 1, "the four went in one call");
    assert.deepEqual(outcomes.map((o) => o.status), ["rejected", "rejected", "fulfilled", "fulfilled"]);
    const [e0, e1] = outcomes.map((o) => (o as PromiseRejectedResult).reason);
    assert.ok(e0 instanceof FencedError && e0.epoch === old!.epoch && e0.currentEpoch === now!.epoch, String(e0));
    assert.ok(e1 instanceof FencedError, String(e1));
    assert.equal(await ctx.store.streamVersion(stale), 0);
    assert.equal(await ctx.store.streamVersion(foreign), 0);
    assert.equal(await ctx.store.streamVersion(owner), 1);
  });

  test("the function stores what the canonical text says, and refuses a canonical text naming another stream", async () => {
    const run = uniqueId("run");
    const s = uniqueId("gc-canon");
    const deps = { clock: systemClock, newId: randomId };
    const good = prepareAppend(deps, s, 0, [turnEvent(run, s, 1)]);
    const forged = prepareAppend(deps, uniqueId("gc-elsewhere"), 0, [turnEvent(run, s, 1)]);
    // The forged append claims stream s, but its event's hashed fields name another stream.
    await assert.rejects(
      sendAppends(ctx.db.database, [good, { ...forged, streamId: s + "-x" }]),
      (e: unknown) => (e as { code?: string }).code === "AR400",
    );
    assert.equal(await ctx.store.streamVersion(s), 0, "nothing of the failed call is written");
    const [sent] = await sendAppends(ctx.db.database, [good]);
    assert.ok(sent.ok);
    const stored = await ctx.store.readStream(s);
    const result = (sent as { ok: true; result: AppendResult }).result;
    assert.deepEqual(stored[0].data, result.events[0].data);
    assert.deepEqual(stored[0].metadata, result.events[0].metadata);
    assert.equal(stored[0].recordedAt.toISOString(), result.events[0].recordedAt.toISOString());
    assert.equal((await ctx.store.verify(s)).ok, true);
  });
});
