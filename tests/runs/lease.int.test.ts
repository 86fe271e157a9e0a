import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { FencedError } from "../../core/errors.ts";
import { findRun, forceLease, releaseLease, renewLease, submitRun, takeLease } from "../../runs/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { cancelledEvent, turnEvent } from "../events/fixtures.ts";

forEachEngine("leases and fencing", (ctx) => {
  const db = () => ctx.db.database;

  test("a submitted run is taken once, at epoch 1; a live lease is not taken again, an expired one is, at the next epoch", async () => {
    const run = await submitRun(ctx.store, { question: "What does ADIV cost?" });
    const first = await takeLease(db(), { owner: "w1", ttlMs: 60_000, runId: run.runId });
    assert.equal(first?.epoch, 1);
    assert.equal(first?.fresh, true);
    assert.equal(await takeLease(db(), { owner: "w2", ttlMs: 60_000, runId: run.runId }), null);

    // Given: the lease ran out (its time to live was zero)
    assert.ok(await renewLease(db(), first!, 0));
    const second = await takeLease(db(), { owner: "w2", ttlMs: 60_000, runId: run.runId });
    assert.equal(second?.epoch, 2);
    assert.equal(second?.fresh, false);
    assert.equal(await renewLease(db(), first!, 60_000), false, "the old owner's heartbeat is refused");
    assert.equal((await findRun(db(), run.runId)).leaseOwner, "w2");
  });

  test("an append fenced with a stale epoch throws FencedError and writes nothing; the owner's epoch writes", async () => {
    const run = await submitRun(ctx.store, { question: "q" });
    const old = await takeLease(db(), { owner: "w1", ttlMs: 0, runId: run.runId });
    const stream = `executor-${run.mainExecutorId}`;
    await ctx.store.withFence({ runId: run.runId, epoch: old!.epoch }).append(stream, 0, [turnEvent(run.runId, run.mainExecutorId, 1)]);
    const now = await takeLease(db(), { owner: "w2", ttlMs: 60_000, runId: run.runId });

    await assert.rejects(
      ctx.store.withFence({ runId: run.runId, epoch: old!.epoch }).append(stream, 1, [turnEvent(run.runId, run.mainExecutorId, 2)]),
      (e: unknown) => e instanceof FencedError && e.epoch === 1 && e.currentEpoch === 2 && /taken over/.test(e.message),
    );
    assert.equal(await ctx.store.streamVersion(stream), 1);
    await ctx.store.withFence({ runId: run.runId, epoch: now!.epoch }).append(stream, 1, [turnEvent(run.runId, run.mainExecutorId, 2)]);
    assert.equal(await ctx.store.streamVersion(stream), 2);
    assert.deepEqual(await ctx.store.verify(stream).then((v) => v.ok), true);
  });

  test("a fenced writer cannot append another run's events, nor to a run that has no row", async () => {
    const a = await submitRun(ctx.store, { question: "a" });
    const lease = await takeLease(db(), { owner: "w", ttlMs: 60_000, runId: a.runId });
    const fenced = ctx.store.withFence({ runId: a.runId, epoch: lease!.epoch });
    await assert.rejects(fenced.append("executor-other", 0, [cancelledEvent("some-other-run", "other")]), FencedError);
    await assert.rejects(
      ctx.store.withFence({ runId: "no-such-run", epoch: 1 }).append("executor-x", 0, [cancelledEvent("no-such-run", "x")]),
      FencedError,
    );
    assert.equal(await ctx.store.streamVersion("executor-other"), 0);
  });

  test("a forced takeover (an operator's cancel) fences the owner at once, whatever its lease", async () => {
    const run = await submitRun(ctx.store, { question: "q" });
    const owner = await takeLease(db(), { owner: "w1", ttlMs: 60_000, runId: run.runId });
    const forced = await forceLease(db(), { runId: run.runId, owner: "cancel", ttlMs: 60_000 });
    assert.equal(forced?.lease.epoch, owner!.epoch + 1);
    assert.equal(forced?.previousState, "running");
    await assert.rejects(
      ctx.store.withFence({ runId: run.runId, epoch: owner!.epoch }).append(`executor-${run.mainExecutorId}`, 0, [turnEvent(run.runId, run.mainExecutorId, 1)]),
      FencedError,
    );
    assert.ok(await releaseLease(db(), forced!.lease, "finished"));
    assert.equal(await forceLease(db(), { runId: run.runId, owner: "again", ttlMs: 1 }), null, "a finished run is not taken");
  });

  test("released as running, a run is takeable at once; interrupted, only by a resume", async () => {
    const run = await submitRun(ctx.store, { question: "q" });
    const l1 = await takeLease(db(), { owner: "w1", ttlMs: 60_000, runId: run.runId });
    await releaseLease(db(), l1!, "running");
    const l2 = await takeLease(db(), { owner: "w2", ttlMs: 60_000, runId: run.runId });
    assert.equal(l2?.epoch, 2);
    await releaseLease(db(), l2!, "interrupted");
    assert.equal(await takeLease(db(), { owner: "w3", ttlMs: 60_000, runId: run.runId }), null);
    assert.equal((await takeLease(db(), { owner: "w3", ttlMs: 60_000, runId: run.runId, interrupted: true }))?.epoch, 3);
  });

  test("two workers racing for the same runs take each exactly once (SKIP LOCKED)", async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => submitRun(ctx.store, { question: `race ${i}` })));
    const ids = new Set(runs.map((r) => r.runId));
    const taken: string[] = [];
    await Promise.all(
      ["a", "b", "c"].map(async (owner) => {
        for (;;) {
          const l = await takeLease(db(), { owner, ttlMs: 60_000 });
          if (!l) return;
          taken.push(l.runId);
        }
      }),
    );
    const mine = taken.filter((id) => ids.has(id));
    assert.equal(mine.length, 6);
    assert.equal(new Set(mine).size, 6);
  });

  test("submit refuses an empty question or unknown options and writes nothing", async () => {
    const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_runs`.execute(db().db);
    await assert.rejects(submitRun(ctx.store, { question: "  " }), /question: a non-empty question/);
    await assert.rejects(submitRun(ctx.store, { question: "q", options: { colour: "red" } }), /options/);
    const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_runs`.execute(db().db);
    assert.equal(after.rows[0].n, before.rows[0].n);
  });
}, { endToEnd: true });
