import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "kysely";
import { releaseOpenReservations } from "../../db/releaseOpenReservations.ts";
import { openRunBudget, readRunBudget, reserveBudget, resolveCaps, settleBudget } from "../../governance/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";

/**
 * A ledger call whose reply was lost (the server restarted after it committed)
 * is retried by its caller (db/runBudgets.ts). Keyed by the reservation's id
 * (migration 0014), the retry changes nothing: no reservation taken twice, no
 * settle counted twice (which would drive reserved below zero and fail its
 * CHECK), a refused reservation refused again.
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

    // A refusal is remembered too: the retry of a refused call does not reserve.
    const big = { ...r, tokens: 9_000, reservationId: "res-2" };
    assert.equal((await reserveBudget(db, big)).ok, false);
    assert.equal((await reserveBudget(db, { ...big, tokens: 10 })).ok, false, "same id: the first answer, whatever the amount");
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 0);

    // Without an id, calls are counted each time (as before migration 0014).
    const plain = { ...r, reservationId: undefined, tokens: 100 };
    await reserveBudget(db, plain);
    await reserveBudget(db, plain);
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 200);

    await releaseOpenReservations(db, runId);
    const keys = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_budget_ops WHERE run_id = ${runId}`.execute(db.db);
    assert.equal(keys.rows[0].n, 0);
    assert.equal((await readRunBudget(db, runId))!.totals.reservedTokens, 0);
  });
});
