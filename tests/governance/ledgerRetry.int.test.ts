import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "kysely";
import { releaseOpenReservations } from "../../db/releaseOpenReservations.ts";
import { openRunBudget, readRunBudget, reserveBudget, resolveCaps, settleBudget } from "../../governance/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";

/**
 * A ledger call whose reply was lost (the server restarted after it committed)
 * is retried by its caller (db/runBudgets.ts). Keyed by the reservation's id
 * (migration 0014: the budget row lists its open reservation ids), the retry
 * changes nothing: no reservation taken twice, no settle counted twice (which
 * would drive reserved below zero and fail its CHECK); a refused reservation
 * took nothing, so its retry is decided afresh.
 */
forEachEngine("the budget ledger retried after a lost reply", (ctx) => {
  test("reserve and settle repeated with the same reservation id count once; the keys go with the run's release", async () => {
    const db = ctx.db.database;
    const runId = uniqueId("run");
    await openRunBudget(db, runId, resolveCaps({ run: { maxTokens: 10_000 } }));
    const r = { runId, executorId: "x", tokens: 4_000, costMicros: 10, executorMaxTokens: 100_000, reservationId: "res-1" };
    assert.equal((await reserveBudget(db, r)).ok, true);
    const again = await reserveBudget(db, r);
    assert.equal(again.ok, true, "the retry answers as the first call did");
    assert.equal(again.totals?.reservedTokens, 4_000, "reserved once");
    assert.equal((await readRunBudget(db, runId))!.openReservations, 1);

    const s = { runId, executorId: "x", reserved: { tokens: 4_000, costMicros: 10 }, actual: { tokens: 3_000, costMicros: 8 }, reservationId: "res-1" };
    await settleBudget(db, s);
    const totals = await settleBudget(db, s);
    assert.deepEqual([totals.spentTokens, totals.reservedTokens], [3_000, 0], "settled once");

    // A refusal took nothing: its retry is decided afresh, on the budget as it stands.
    const big = { ...r, tokens: 9_000, reservationId: "res-2" };
    assert.equal((await reserveBudget(db, big)).ok, false);
    assert.equal((await reserveBudget(db, big)).ok, false, "refused again: the budget has not changed");
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 0);

    // Two reservations open at once (two executors), each settled once, in either order.
    const a = { ...r, tokens: 1_000, reservationId: "res-a" };
    const b = { ...r, executorId: "y", tokens: 2_000, reservationId: "res-b" };
    assert.equal((await reserveBudget(db, a)).ok, true);
    assert.equal((await reserveBudget(db, b)).ok, true);
    assert.equal((await reserveBudget(db, a)).ok, true, "a retry of res-a while res-b is open");
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 3_000);
    for (const [req, tokens] of [[b, 2_000], [a, 1_000]] as const) {
      const settle = { runId, executorId: req.executorId, reserved: { tokens, costMicros: 10 }, actual: { tokens: 500, costMicros: 1 }, reservationId: req.reservationId };
      await settleBudget(db, settle);
      await settleBudget(db, settle);
    }
    assert.deepEqual(
      [(await readRunBudget(db, runId))!.totals.reservedTokens, (await readRunBudget(db, runId))!.totals.spentTokens],
      [0, 4_000],
      "each settled once",
    );

    // Without an id, calls are counted each time (as before migration 0014).
    const plain = { ...r, reservationId: undefined, tokens: 100 };
    await reserveBudget(db, plain);
    await reserveBudget(db, plain);
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 200);

    await releaseOpenReservations(db, runId);
    const open = await sql<{ n: number }>`SELECT cardinality(open_ops)::int AS n FROM ariadne_run_budgets WHERE run_id = ${runId}`.execute(db.db);
    assert.equal(open.rows[0].n, 0);
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 0);
  });
});
