import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ExecutorState, foldExecutor, type Outcome } from "../../actors/index.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../../models/index.ts";
import { exchanges } from "../../scenarios/requestView.ts";
import { drainingStore } from "../../runs/host/drainingStore.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { delegatingMain, delegation, eventually, firstMessageText, handoffInput, handoffReply, ofType, runtimeWith, within } from "./fixtures.ts";

/**
 * Recovery equivalence. A random scripted run (Main delegates 0-3 Children in
 * one or two batches; each Child makes 0-3 turns of 1-2 corpus searches, then
 * hands off; Main answers) is stopped dead once the log holds N events (its
 * store halts every append, as if the process died: nothing more is written).
 * Then:
 *  - every executor rebuilt from the log (a new runtime's `load`, the rebuild
 *    a resume does) has the same folded snapshot as the stopped run's live
 *    executor at that log position, and as the one fold over its stored events;
 *  - a resume in a new runtime brings the run to a final state in which every
 *    committed handoff was consumed exactly once, and no executor is left running.
 */
const ChildPlan = fc.record({ turns: fc.integer({ min: 0, max: 3 }), perTurn: fc.integer({ min: 1, max: 2 }) });
const RunPlan = fc.record({
  batches: fc.array(fc.array(ChildPlan, { minLength: 1, maxLength: 2 }), { minLength: 0, maxLength: 2 }),
  /** Where the run is stopped, as a share of the events an uninterrupted run of the plan writes. */
  stopAt: fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
});
type RunPlan = typeof RunPlan extends fc.Arbitrary<infer T> ? T : never;

/** A Child follows the plan written into its question: `plan T x P` (T turns of P searches, then a handoff). */
const childPolicy: ScriptPolicy = (request) => {
  const [, turns, perTurn] = /plan (\d+) x (\d+)/.exec(firstMessageText(request)) ?? [];
  const done = exchanges(request).length / Math.max(1, Number(perTurn));
  if (done < Number(turns)) {
    return {
      content: Array.from({ length: Number(perTurn) }, (_, i) => ({ type: "tool_use" as const, name: "search_corpus", input: { query: `ADIV fees ${done} ${i}` } })),
    } satisfies ScriptedReply;
  }
  return handoffReply(handoffInput(`[general] searched ${turns} x ${perTurn}.`));
};

const mainPolicy = (plan: RunPlan): ScriptPolicy =>
  delegatingMain(...plan.batches.map((batch) => batch.map((c, i) => delegation(`Child ${i}: plan ${c.turns} x ${c.perTurn}. Look up ADIV.`, "general"))));

const runtimeFor = (store: Parameters<typeof runtimeWith>[0], plan: RunPlan, onEvent?: (e: RecordedEvent) => void) =>
  runtimeWith(
    store,
    { main: new ScriptedModel({ name: "main", policy: mainPolicy(plan) }), child: new ScriptedModel({ name: "child", policy: childPolicy }) },
    onEvent ? { onEvent } : {},
  );

/** Every executor of a run reached a final state; each committed handoff consumed exactly once. */
function assertFinished(events: readonly RecordedEvent[], mainExecutorId: string, outcome: Outcome) {
  assert.equal(outcome.kind, "answer", JSON.stringify(outcome));
  const admitted = ofType(events, "executor_admitted");
  for (const a of admitted) {
    const finals = events.filter((e) => e.metadata.executorId === a.metadata.executorId && ["settled", "failed", "cancelled"].includes(e.type));
    assert.equal(finals.length, 1, `executor ${a.metadata.executorId} has ${finals.length} final events`);
  }
  for (const child of admitted.filter((a) => a.data.role === "child")) {
    const id = child.metadata.executorId;
    const committed = ofType(events, "handoff_committed").filter((e) => e.metadata.executorId === id).length;
    const consumed = ofType(events, "handoff_consumed").filter((e) => e.data.childExecutorId === id);
    assert.equal(committed, 1, `child ${id} committed ${committed} handoffs`);
    assert.equal(consumed.length, 1, `child ${id}'s handoff consumed ${consumed.length} times`);
    assert.equal(consumed[0].metadata.executorId, mainExecutorId);
  }
}

forEachEngine("recovery equivalence (property)", (ctx) => {
  for (const seed of [7, 19, 2026]) {
    test(`seed ${seed}: a run stopped at a random log position is rebuilt into the live executors' snapshots, and resumes to one final state with every handoff consumed once`, async () => {
      /** Runs really stopped before their end (a run may outrun its stop when the interleaving differs). */
      let stopped = 0;
      await fc.assert(
        fc.asyncProperty(RunPlan, async (plan) => {
          // How long an uninterrupted run of this plan is, in events.
          const whole = await within(20_000, runtimeFor(ctx.store, plan).startRun("What does ADIV cost?").then((h) => h.result.then(() => h)));
          const total = (await ctx.store.readRun(whole.runId)).length;
          const stopAt = 1 + Math.floor(plan.stopAt * (total - 1));

          // The same plan, stopped dead once the log holds stopAt events.
          const store = drainingStore(ctx.store);
          const gate = Object.assign(store, { halted: false });
          let seen = 0;
          const first = runtimeFor(gate, plan, () => {
            if (++seen >= stopAt) {
              gate.halt();
              gate.halted = true;
            }
          });
          const run = await first.startRun("What does ADIV cost?");
          const finished = run.result.then(
            () => true,
            () => true,
          );
          // Quiet: appends since the halt are parked; one already under way when it came has committed by now.
          let done = false;
          void finished.then(() => (done = true));
          let length = -1;
          await eventually(async () => {
            await new Promise((r) => setTimeout(r, 50));
            const now = (await ctx.store.readRun(run.runId)).length;
            const quiet = (gate.halted && now === length) || done;
            length = now;
            return quiet;
          }, 10_000);
          const log = await ctx.store.readRun(run.runId);
          if (!log.some((e) => e.type === "settled" && e.metadata.executorId === run.mainExecutorId)) stopped++;
          const ids = [...new Set(ofType(log, "executor_admitted").map((e) => e.metadata.executorId))];

          // Rebuilt by a new runtime from the log, not run: the same snapshot as the stopped live executor, and as the one fold.
          const second = runtimeFor(ctx.store, plan);
          for (const id of ids) {
            const rebuilt = await second.load(id);
            const live = await first.load(id);
            const folded = foldExecutor(log.filter((e) => e.metadata.executorId === id));
            assert.deepEqual(snapshot(rebuilt.fold), snapshot(folded), `executor ${id}: rebuilt vs folded at position ${log.length}`);
            assert.deepEqual(snapshot(live.fold), snapshot(rebuilt.fold), `executor ${id}: live vs rebuilt at position ${log.length}`);
          }

          // Resumed: one final state, every handoff consumed exactly once.
          const resumed = await within(20_000, second.resumeRun(run.runId));
          const outcome = await within(20_000, resumed.result);
          assertFinished(await ctx.store.readRun(run.runId), run.mainExecutorId, outcome);
        }),
        { seed, numRuns: 4, endOnFailure: true },
      );
      assert.ok(stopped > 0, "no run was stopped before its end");
    });
  }
});

function snapshot(fold: { status: string; state: ExecutorState }) {
  return { status: fold.status, state: fold.state };
}
