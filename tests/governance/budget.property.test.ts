import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import type { ExecutorState } from "../../actors/fold/executorState.ts";
import { manualClock } from "../../core/clock.ts";
import { type RecordedEvent, createEventStore } from "../../events/index.ts";
import { createRunGovernance, readRunBudget, resolveCaps } from "../../governance/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { admit, poster, record } from "./fixtures.ts";

const MODELS = ["claude-haiku-4-5", "claude-sonnet-4-5", "claude-3-5-haiku"] as const;

/** One model call an executor wants: its worst case, and what it really spends as fractions of it. */
const call = fc.record({
  model: fc.constantFrom(...MODELS),
  inputTokens: fc.integer({ min: 0, max: 3000 }),
  maxTokens: fc.integer({ min: 1, max: 2000 }),
  inputShare: fc.double({ min: 0, max: 1, noNaN: true }),
  outputShare: fc.double({ min: 0, max: 1, noNaN: true }),
});

forEachEngine("shared run budget (property)", (ctx) => {
  it("N concurrent executors with random usage never take a run over any cap; spent is the sum of settles; nothing stays open", async () => {
    const clock = manualClock();
    const store = createEventStore(ctx.db.database, { clock });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          maxTokens: fc.integer({ min: 2_000, max: 40_000 }),
          maxCostMicros: fc.integer({ min: 2_000, max: 150_000 }),
          executorMaxTokens: fc.integer({ min: 1_000, max: 20_000 }),
          maxTurns: fc.integer({ min: 1, max: 6 }),
          plans: fc.array(fc.array(call, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }),
        }),
        async (p) => {
          const runId = uniqueId("prop");
          const caps = resolveCaps({
            run: { maxTokens: p.maxTokens, maxCostMicros: p.maxCostMicros },
            main: { maxTokens: p.executorMaxTokens, maxTurns: p.maxTurns },
            child: { maxTokens: p.executorMaxTokens, maxTurns: p.maxTurns },
          });
          const governance = createRunGovernance({ db: ctx.db.database, clock, post: poster(store, runId), caps });
          const main = await admit(store, { runId, executorId: uniqueId("main") });
          await governance.openRun(runId);
          const executors: ExecutorState[] = [main];
          for (let i = 1; i < p.plans.length; i++) {
            executors.push(await admit(store, { runId, executorId: uniqueId("child"), parent: main, profile: "compute-analyst" }));
          }

          // An observer reading the ledger while the executors work: spent + reserved never passes a cap.
          let working = true;
          const observed: string[] = [];
          const observer = (async () => {
            while (working) {
              // Yields to the event loop: awaiting PGlite alone never does, and PGlite appends wait for a turn of it.
              await new Promise((resolve) => setImmediate(resolve));
              const { totals } = (await readRunBudget(ctx.db.database, runId))!;
              if (totals.spentTokens + totals.reservedTokens > totals.maxTokens) observed.push(`tokens ${JSON.stringify(totals)}`);
              if (totals.spentCostMicros + totals.reservedCostMicros > totals.maxCostMicros) observed.push(`cost ${JSON.stringify(totals)}`);
            }
          })();

          /** What happened, per executor, in order: the model is called only after an accepted reservation. */
          const trace = new Map<string, ("refused" | "called")[]>();
          const settled = { tokens: 0, costMicros: 0 };
          await Promise.all(
            executors.map(async (start, i) => {
              let state = start;
              const steps: ("refused" | "called")[] = [];
              trace.set(state.executorId, steps);
              for (const c of p.plans[i]) {
                const verdict = await governance.beforeModelCall(state, { model: c.model, inputTokens: c.inputTokens, maxTokens: c.maxTokens });
                if (!verdict.ok) {
                  steps.push("refused");
                  state = await record(store, state, verdict.events);
                  break; // a refused executor finishes with what it has
                }
                steps.push("called");
                const usage = { inputTokens: Math.floor(c.inputTokens * c.inputShare), outputTokens: Math.floor(c.maxTokens * c.outputShare) };
                const drafts = await governance.afterModelCall(state, verdict.reservation, usage);
                const actual = drafts.find((d) => d.type === "budget_settled")!.data as { actual: { tokens: number; costMicros: number } };
                settled.tokens += actual.actual.tokens;
                settled.costMicros += actual.actual.costMicros;
                state = { ...(await record(store, state, [...verdict.events, ...drafts])), turn: state.turn + 1 };
              }
            }),
          );
          // Each Child's last settle may still be on its way (it is written beside the turn's append).
          await governance.settled();
          working = false;
          await observer;
          assert.deepEqual(observed, [], "the ledger was seen over a cap");

          const budget = (await readRunBudget(ctx.db.database, runId))!;
          assert.deepEqual([budget.totals.reservedTokens, budget.totals.reservedCostMicros, budget.openReservations], [0, 0, 0], "a reservation was left open");
          assert.ok(budget.totals.spentTokens <= p.maxTokens, `spent ${budget.totals.spentTokens} tokens over the cap ${p.maxTokens}`);
          assert.ok(budget.totals.spentCostMicros <= p.maxCostMicros, `spent ${budget.totals.spentCostMicros} µUSD over the cap ${p.maxCostMicros}`);
          assert.deepEqual([budget.totals.spentTokens, budget.totals.spentCostMicros], [settled.tokens, settled.costMicros]);

          const events = await store.readRun(runId);
          const ofType = <T extends RecordedEvent["type"]>(t: T) => events.filter((e) => e.type === t) as RecordedEvent<T>[];
          const logged = ofType("budget_settled").reduce((sum, e) => sum + e.data.actual.tokens!, 0);
          assert.equal(budget.totals.spentTokens, logged, "spent equals the sum of the settles in the log");
          const calls = [...trace.values()].flat().filter((s) => s === "called").length;
          assert.equal(ofType("budget_reserved").length, calls);
          assert.equal(ofType("budget_settled").length, calls);

          const keys = ofType("reminder_raised").map((e) => e.data.key);
          assert.deepEqual(keys, [...new Set(keys)], "a reminder was raised twice");
          assert.ok(ofType("reminder_raised").every((e) => e.metadata.executorId === main.executorId), "reminders are for Main");

          for (const e of executors) {
            const steps = trace.get(e.executorId)!;
            assert.ok(steps.indexOf("refused") === -1 || steps.indexOf("refused") === steps.length - 1, "no call after a refusal");
            assert.ok(steps.filter((s) => s === "called").length <= p.maxTurns, "an executor went past its turns");
            assert.ok((budget.executorSpent[e.executorId] ?? 0) <= p.executorMaxTokens, "an executor went past its own token cap");
            const own = events.filter((x) => x.metadata.executorId === e.executorId && x.type.startsWith("budget_"));
            const refusedAt = own.findIndex((x) => x.type === "budget_refused");
            assert.equal(refusedAt === -1, !steps.includes("refused"), "every refusal is recorded");
            if (refusedAt !== -1) assert.equal(refusedAt, own.length - 1, "the refusal came before any further model call");
          }
        },
      ),
      { numRuns: ctx.engine === "postgres" ? 25 : 10 },
    );
  });
});
