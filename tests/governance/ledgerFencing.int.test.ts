import assert from "node:assert/strict";
import { test } from "node:test";
import { isFencedError } from "../../core/errors.ts";
import { openRunBudget, readRunBudget, reserveBudget, resolveCaps, settleBudget } from "../../governance/index.ts";
import { forceLease, leaseOwner, submitRun } from "../../runs/index.ts";
import { OFFLINE_QUESTION } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { forEachEngine } from "../support/forEachEngine.ts";

forEachEngine("the budget ledger is fenced like the log", (ctx) => {
  test("a paused old owner can neither settle nor reserve after a takeover; the new owner can", async () => {
    const { runId, lease } = await submitRun(ctx.store, { question: OFFLINE_QUESTION, options: { mode: "offline" } }, undefined, { owner: leaseOwner("old"), ttlMs: 60_000 });
    const db = ctx.db.database;
    await openRunBudget(db, runId, resolveCaps());
    const old = lease!.epoch;
    const amount = { runId, executorId: "x", tokens: 1_000, costMicros: 10, executorMaxTokens: 100_000 };
    assert.equal((await reserveBudget(db, { ...amount, epoch: old })).ok, true);

    const taken = await forceLease(db, { runId, owner: leaseOwner("new"), ttlMs: 60_000 });
    assert.ok(taken && taken.lease.epoch > old);
    const before = await readRunBudget(db, runId);

    const settle = settleBudget(db, { runId, executorId: "x", reserved: { tokens: 1_000, costMicros: 10 }, actual: { tokens: 900, costMicros: 9 }, epoch: old });
    await assert.rejects(settle, (e: unknown) => isFencedError(e));
    await assert.rejects(reserveBudget(db, { ...amount, epoch: old }), (e: unknown) => isFencedError(e));
    assert.deepEqual(await readRunBudget(db, runId), before, "a refused call changes nothing");

    assert.equal((await reserveBudget(db, { ...amount, epoch: taken.lease.epoch })).ok, true);
    // Not hosted under a lease (no epoch): no check, as before.
    assert.equal((await reserveBudget(db, amount)).ok, true);
  });
});
