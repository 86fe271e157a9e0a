import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { claimCheckpoint } from "../../events/checkpointLease.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { leaseOwner, ownerIsDead } from "../../runs/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

/**
 * A shared checkpoint's lease held by a process that died on this host (issue
 * 33, item 6: the trace exporter of a crashed `ariadne run`) is taken over at
 * once by the next subscription, not when the lease runs out: `ariadne resume`
 * right after the crash exports the run's spans itself. An owner that is alive
 * (this process) keeps its lease.
 */
forEachEngine("a dead process's checkpoint lease", (ctx) => {
  const deadPid = spawnSync(process.execPath, ["-e", "0"]).pid;
  const deadOwner = `traces@${hostname()}:${deadPid}:0badc0de`;

  test("is taken over at once by a subscription that can tell its owner died", { timeout: 30_000 }, async () => {
    assert.equal(ownerIsDead(deadOwner), true);
    const subscriptionId = uniqueId("traces");
    // The crashed process took the lease for a minute and never gave it back.
    assert.ok(await claimCheckpoint(ctx.store.database, subscriptionId, deadOwner, 60_000));
    const run = uniqueId("run");
    const stream = uniqueId("executor");
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1)]);
    const seen: RecordedEvent[] = [];
    const sub = await ctx.store.subscribe({ subscriptionId, pollMs: 50, handle: (e) => void seen.push(e), lease: { ttlMs: 60_000, owner: leaseOwner("traces"), ownerIsDead } });
    try {
      await Promise.race([sub.caughtUp(), new Promise((_, reject) => setTimeout(() => reject(new Error("the dead holder's lease was not taken over")), 10_000))]);
      assert.ok(seen.some((e) => e.metadata.runId === run), "this subscription handled the run's event");
    } finally {
      await sub.stop();
    }
  });

  test("a live holder keeps it", { timeout: 30_000 }, async () => {
    const subscriptionId = uniqueId("traces");
    const alive = leaseOwner("traces"); // this process
    assert.ok(await claimCheckpoint(ctx.store.database, subscriptionId, alive, 60_000));
    const run = uniqueId("run");
    const stream = uniqueId("executor");
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1)]);
    const seen: RecordedEvent[] = [];
    const sub = await ctx.store.subscribe({ subscriptionId, pollMs: 50, handle: (e) => void seen.push(e), lease: { ttlMs: 60_000, owner: leaseOwner("traces"), ownerIsDead } });
    try {
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(seen.length, 0, "another live owner's lease is not taken");
    } finally {
      await sub.stop();
    }
  });
});
