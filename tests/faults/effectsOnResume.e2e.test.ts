import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { openStore } from "../../events/openStore.ts";
import { type RecordedEvent, intentOf } from "../../events/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { startEffectCounter } from "./effectCounter.ts";
import { runCase } from "./harness.ts";

/**
 * Effects and the unknown, end to end: a real process SIGKILLed with a call in
 * flight, then `resume` in a new process (seed 1: the second pass of the point,
 * a Child's call). A read-only call is run again and completes; an effectful
 * one becomes effect_unknown, is never run again (the counter stays at 1) and
 * the Child's handoff says so.
 */
describe("effects in flight at a crash, resolved by their effect class (PostgreSQL, SIGKILL, resume)", () => {
  let counter: Awaited<ReturnType<typeof startEffectCounter>>;
  let scratch: ScratchDatabase;
  before(async () => {
    counter = await startEffectCounter();
    scratch = await createScratchDatabase(`ariadne_effects_${process.pid}`, ADMIN_URL);
    const database = await openDatabase({ url: scratch.url });
    await migrateToLatest(database);
    await database.close();
  });
  after(async () => {
    await counter?.close();
    await scratch?.drop();
  });

  const logOf = async (runId: string) => {
    const opened = await openStore({ url: scratch.url });
    try {
      return await opened.store.readRun(runId);
    } finally {
      await opened.close();
    }
  };
  const ofType = <T extends RecordedEvent["type"]>(events: RecordedEvent[], type: T) => events.filter((e) => e.type === type) as RecordedEvent<T>[];

  test("a read-only call in flight at the crash is run again on resume and recorded once", async () => {
    const r = await runCase({ url: scratch.url }, counter, "after_effect:read_counter", 1);
    assert.ok(r.crashed, `the crash point was never reached; the process printed:\n${r.firstOutput}`);
    assert.deepEqual(r.violations, [], `run ${r.runId}`);
    const events = await logOf(r.runId);
    // The crash is at the second read's return, before its outcome was appended (and, unless the
    // turn's effectful call recorded something first, before its intent: then the log has nothing of it).
    const reads = counter.readsOf(r.runId);
    const reran = reads.filter((x) => x.n === 2);
    assert.ok(reran.length >= 1, JSON.stringify(reads));
    assert.ok(reads.every((x) => x.n <= 2), JSON.stringify(reads));
    for (const { key } of reran) {
      const executorId = key.split("/")[1];
      const own = events.filter((e) => e.metadata.executorId === executorId && "tool" in e.data && e.data.tool === "read_counter");
      // Run twice, recorded once: one intent (a tool_called, or carried by its outcome: one row) and one outcome.
      assert.equal(own.filter((e) => intentOf(e)).length, 1, own.map((e) => e.type).join(", "));
      const outcomes = own.filter((e) => e.type !== "tool_called") as RecordedEvent<"tool_completed">[];
      assert.deepEqual(outcomes.map((e) => e.type), ["tool_completed"]);
      assert.match(outcomes[0].data.output, /^effects recorded so far: \d+$/);
      // An intent the log held at the crash is named by the host that ran it again.
      const [called] = own.filter((e) => e.type === "tool_called");
      if (called) assert.ok(ofType(events, "recovered").some((e) => e.metadata.executorId === executorId && e.data.rerun.includes(outcomes[0].data.toolUseId)));
    }
  });

  test("an effectful call in flight at the crash becomes effect_unknown, is never run again, and the Child's handoff lists it", async () => {
    const r = await runCase({ url: scratch.url }, counter, "after_effect:record_effect", 1);
    assert.ok(r.crashed, `the crash point was never reached; the process printed:\n${r.firstOutput}`);
    assert.deepEqual(r.violations, [], `run ${r.runId}`);
    const events = await logOf(r.runId);
    // The crash is at the second effect's return; another executor's effectful call may be in flight too.
    const unknowns = ofType(events, "effect_unknown");
    assert.ok(unknowns.length >= 1);
    for (const unknown of unknowns) {
      assert.equal(unknown.data.tool, "record_effect");
      const executorId = unknown.metadata.executorId;
      const [recovered] = ofType(events, "recovered").filter((e) => e.metadata.executorId === executorId);
      assert.ok(recovered.data.unknownEffects.includes(unknown.data.toolUseId));
      // The effect happened at most once, before the crash, and never again.
      const effects = counter.of(r.runId).filter((x) => x.key.startsWith(`${r.runId}/${executorId}/`));
      assert.ok(effects.every((x) => x.n === 1), JSON.stringify(effects));
      // A Child's call: its handoff carries the unknown effect.
      const [admitted] = ofType(events, "executor_admitted").filter((e) => e.metadata.executorId === executorId);
      if (admitted.data.role !== "child") continue;
      const [committed] = ofType(events, "handoff_committed").filter((e) => e.metadata.executorId === executorId);
      const handoff = committed.data.handoff as { executionState: string; gaps: string[] };
      assert.equal(handoff.executionState, "unknown_effects");
      assert.ok(handoff.gaps.some((g) => g.includes(`record_effect (${unknown.data.toolUseId})`)), handoff.gaps.join(" | "));
    }
    // The second pass is a Child's call.
    const roles = unknowns.map((u) => ofType(events, "executor_admitted").find((e) => e.metadata.executorId === u.metadata.executorId)!.data.role);
    assert.ok(roles.includes("child"), roles.join(", "));
  });
});
