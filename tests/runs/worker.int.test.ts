import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { findRun, runWorker, submitRun } from "../../runs/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { ofType } from "../actors/fixtures.ts";
import { slowOrderRun } from "./slowOrderRun.ts";

forEachEngine("the worker loop", (ctx) => {
  test("a worker whose own lease ran out while it hosts the run (a late heartbeat) does not take the run from itself: one hosting finishes it, and the worker returns after", async () => {
    const s = slowOrderRun();
    const { runId } = await submitRun(ctx.store, { question: "Place the order." });
    // A long time to live: the heartbeat renews only every 20 s, so the lease stays run out once made so.
    const worker = runWorker({ database: ctx.db.database, store: ctx.store, buildRuntime: s.build, ttlMs: 60_000, pollMs: 20, idleExitMs: 300 });
    await s.counter.started.opened;
    // Given: the lease ran out while the tool is in flight, as if the heartbeat had been held up.
    await sql`UPDATE ariadne_runs SET lease_expires_at = now() - interval '1 second' WHERE run_id = ${runId}`.execute(ctx.db.database.db);
    await new Promise((r) => setTimeout(r, 200)); // several polls of the worker
    s.open();

    const { results } = await worker;
    assert.deepEqual(
      results.map((r) => (r.kind === "finished" ? `finished:${r.outcome.kind}` : r.kind)),
      ["finished:answer"],
      "one hosting, which finished the run",
    );
    assert.equal((await findRun(ctx.db.database, runId)).state, "finished");
    const events = await ctx.store.readRun(runId);
    assert.equal(s.counter.runs, 1, "the effect ran once");
    assert.equal(ofType(events, "effect_unknown").length, 0, "no second hosting found the call in flight");
    assert.equal(ofType(events, "settled").length, 1);
  });
});
