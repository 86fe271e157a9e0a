import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type EventStore, type NewEvent, type RecordedEvent, START, payloadSchema, executorStreamId } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { loadCheckpoint } from "../../events/readFromCheckpoint.ts";
import { projectRun, startProjections } from "../../projections/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { delegatingMain, delegation, firstMessageText, handoffInput, handoffReply, runtimeWith, useReply, within } from "../actors/fixtures.ts";

const TIMEOUT = { timeout: 240_000 };

/** Whether the catalogue's Amount keeps `costMicros` yet (governance adds it); until then it is stripped on append. */
const COST_STORED = "costMicros" in
  (payloadSchema("budget_reserved", 1)!.parse({ reservationId: "r", purpose: "model", amount: { costMicros: 1 } }) as { amount: object }).amount;
const cost = (micros: number) => (COST_STORED ? micros : 0);

/** What one Child does, written into its task so one scripted policy serves every Child. */
interface ChildPlan {
  searches: number;
  /** handoff: a valid handoff; stall: never hands off, so repairs run out and the runtime forces a partial one. */
  end: "handoff" | "stall";
  background: boolean;
}

/** Facts other writers add beside the executors (governance, Remind), appended while the run works. */
type Fact =
  | { kind: "reserve"; tokens: number; costMicros: number; settle: number | null }
  | { kind: "remind"; delivered: boolean };

const childPlan = fc.record({ searches: fc.integer({ min: 0, max: 2 }), end: fc.constantFrom("handoff" as const, "stall" as const), background: fc.boolean() });
const runPlan = fc.record({
  batches: fc.array(fc.array(childPlan, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
  facts: fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant("reserve" as const), tokens: fc.integer({ min: 1, max: 5_000 }), costMicros: fc.nat(9_000), settle: fc.option(fc.nat(5_000)) }),
      fc.record({ kind: fc.constant("remind" as const), delivered: fc.boolean() }),
    ),
    { maxLength: 6 },
  ),
});

const childPolicy: ScriptPolicy = (request) => {
  const plan = JSON.parse(/plan=(\{.*?\})/.exec(firstMessageText(request))![1]) as ChildPlan;
  const done = turnsTaken(request);
  if (done < plan.searches) return useReply("search_corpus", { query: `fund fees ${done}` });
  if (plan.end === "stall") return "(scripted) Still thinking.";
  const [search] = resultsOf(request, "search_corpus");
  const findings = search ? [{ claim: "A fee is stated.", evidence: { toolResults: [search.id], citations: citationsIn(search.output).slice(0, 1) }, confidence: "medium" }] : [];
  return handoffReply(handoffInput("(scripted) done", findings));
};

forEachEngine("projections: rebuild from zero equals the live projection", (ctx) => {
  test("property: after randomized concurrent runs, the subscription-fed views equal projectRun and a rebuild from zero", TIMEOUT, async () => {
    const live = await startProjections(ctx.store, { pollMs: 20, batchSize: 7 });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(runPlan, { minLength: 1, maxLength: 3 }), async (plans) => {
          // When several runs work at once while other writers add facts beside them
          const runs = await Promise.all(plans.map((plan) => runOnce(ctx.store, plan)));
          await live.caughtUp();

          for (const { runId, expected } of runs) {
            const fromLive = live.view(runId);
            const direct = await projectRun(ctx.store, runId);
            // Then the live view is the view folded from zero over the run's events
            assert.deepEqual(fromLive, direct);
            // and it says what happened
            assert.equal(direct.status, "settled");
            assert.equal(direct.executors.length, expected.executors);
            assert.equal(direct.tree.length, 1);
            assert.equal(direct.tree[0].children.length, expected.executors - 1);
            assert.ok(direct.executors.every((e) => e.terminal && e.foldError === null));
            assert.deepEqual(direct.budget.run.spent, expected.spent);
            assert.deepEqual(direct.budget.run.reserved, expected.reserved);
            assert.deepEqual(direct.reminders.all.map((r) => r.status), expected.reminders);
          }

          // And a rebuild from zero, replaying the whole log, lands on the same views
          const before = new Map(runs.map(({ runId }) => [runId, live.view(runId)]));
          await live.rebuild();
          for (const { runId } of runs) assert.deepEqual(live.view(runId), before.get(runId));
        }),
        { numRuns: 6 },
      );
    } finally {
      await live.stop();
    }
  });

  test("a second runner started later, and an unknown run, behave", TIMEOUT, async () => {
    const { runId } = await runOnce(ctx.store, { batches: [[{ searches: 1, end: "handoff", background: false }]], facts: [] });
    const subscriptionId = uniqueId("projections");
    const late = await startProjections(ctx.store, { pollMs: 20, subscriptionId });
    try {
      await late.caughtUp();
      assert.deepEqual(late.view(runId), await projectRun(ctx.store, runId));
      assert.ok(late.runIds().includes(runId));
      assert.notDeepEqual(late.position(), START, "the runner's checkpoint moved with what it folded");
    } finally {
      await late.stop();
    }
    assert.deepEqual(await loadCheckpoint(ctx.db.database, subscriptionId), late.position(), "the checkpoint is stored");
    await assert.rejects(projectRun(ctx.store, uniqueId("no-such-run")), /has no events in this store/);
  });
});

/** One scripted run: Main delegates the batches, Children follow their plans, facts are appended meanwhile. */
async function runOnce(store: EventStore, plan: { batches: ChildPlan[][]; facts: Fact[] }) {
  const batches = plan.batches.map((batch) =>
    batch.map((p, i) => delegation(`task ${i} plan=${JSON.stringify(p)}`, "web-explorer", p.background ? { wait: false } : {})),
  );
  const main = new ScriptedModel({ name: "main", policy: delegatingMain(...batches) });
  const child = new ScriptedModel({ name: "child", policy: childPolicy });
  const executors: string[] = [];
  const pending: Promise<unknown>[] = [];
  let next = 0;
  const factStream = uniqueId("facts");
  let factVersion = 0;
  const append = (events: NewEvent[]) => {
    const expected = factVersion;
    factVersion += events.length;
    return store.append(factStream, expected, events);
  };
  const runtime = runtimeWith(store, { main, child }, {
    limits: { child: { maxHandoffRepairs: 1 } },
    onEvent(e: RecordedEvent) {
      if (e.type === "executor_admitted") executors.push(e.metadata.executorId);
      // Each turn lets the next fact in, written by "another writer" while the run goes on.
      if (e.type !== "turn" || next >= plan.facts.length) return;
      const fact = plan.facts[next];
      const n = next++;
      const metadata = { runId: e.metadata.runId, executorId: e.metadata.executorId };
      pending.push(chain(() => append(factEvents(fact, n, metadata))));
    },
  });
  const run = await runtime.startRun("What do these funds cost?");
  await within(60_000, run.result);
  // Facts not let in by a turn go in after the run.
  for (let n = next; n < plan.facts.length; n++) {
    pending.push(chain(() => append(factEvents(plan.facts[n], n, { runId: run.runId, executorId: run.mainExecutorId }))));
  }
  await Promise.all(pending);
  assert.equal(await store.streamVersion(executorStreamId(run.mainExecutorId)) > 0, true);
  const reserves = plan.facts.filter((f): f is Extract<Fact, { kind: "reserve" }> => f.kind === "reserve");
  return {
    runId: run.runId,
    expected: {
      executors: executors.length,
      spent: { tokens: sum(reserves.map((f) => f.settle ?? 0)), costMicros: cost(sum(reserves.map((f) => (f.settle === null ? 0 : Math.floor(f.costMicros / 2))))) },
      reserved: { tokens: sum(reserves.map((f) => (f.settle === null ? f.tokens : 0))), costMicros: cost(sum(reserves.map((f) => (f.settle === null ? f.costMicros : 0)))) },
      reminders: plan.facts.flatMap((f) => (f.kind === "remind" ? [f.delivered ? "delivered" : "pending"] : [])),
    },
  };
}

// Appends to the fact stream one after another, so each knows its expected version.
let tail: Promise<unknown> = Promise.resolve();
const chain = <T>(f: () => Promise<T>): Promise<T> => {
  const result = tail.then(f);
  tail = result.catch(() => {});
  return result;
};

function factEvents(fact: Fact, n: number, metadata: { runId: string; executorId: string }): NewEvent[] {
  const id = `${metadata.runId}-${n}`;
  if (fact.kind === "remind") {
    return [
      { type: "reminder_raised", data: { reminderId: id, key: `k${n}`, text: `fact ${n}`, facts: { n } }, metadata },
      ...(fact.delivered ? [{ type: "reminder_delivered" as const, data: { reminderId: id, turn: 1, rendered: `[Ariadne runtime reminder, not from the user] fact ${n}` }, metadata }] : []),
    ];
  }
  // costMicros is additive to the catalogue's Amount (governance writes it); the projection reads it when present.
  const amount = { tokens: fact.tokens, costMicros: fact.costMicros } as { tokens: number };
  return [
    { type: "budget_reserved", data: { reservationId: id, purpose: "model", amount }, metadata },
    ...(fact.settle === null
      ? []
      : [{ type: "budget_settled" as const, data: { reservationId: id, actual: { tokens: fact.settle, costMicros: Math.floor(fact.costMicros / 2) } as { tokens: number } }, metadata }]),
  ];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
