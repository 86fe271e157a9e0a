import assert from "node:assert/strict";
import { it } from "node:test";
import { manualClock } from "../../core/clock.ts";
import { type EventStore, createEventStore } from "../../events/index.ts";
import { type CapsRequest, type Verdict, createRunGovernance, resolveCaps } from "../../governance/index.ts";
import { appendRunFact } from "../../runs/appendRunFact.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { admit, poster } from "./fixtures.ts";

const SONNET = "claude-sonnet-4-5";
const S = 1000;

// Issue 17, defect 6: wall clocks count the time a run was hosted, not the time it lay dead between a crash and its resume.
forEachEngine("wall clocks count hosted time", (ctx) => {
  const clock = manualClock();
  let store: EventStore;

  /** Main and an investigate-style Child (90 s) admitted; the host dies 10 s later; a new host resumes the run 9 minutes after. */
  async function crashedAndResumed(request: CapsRequest = {}) {
    store ??= createEventStore(ctx.db.database, { clock });
    const runId = uniqueId("run");
    const caps = resolveCaps(request);
    const main = await admit(store, { runId, executorId: uniqueId("main") });
    await createRunGovernance({ db: ctx.db.database, clock, post: poster(store, runId), caps }).openRun(runId);
    const child = await admit(store, { runId, executorId: uniqueId("child"), parent: main, profile: "web-explorer" });
    clock.advance(10 * S);
    const lastWork = clock.now();
    await admit(store, { runId, executorId: uniqueId("child"), parent: main, profile: "web-explorer" }); // the dead host's last event
    clock.advance(9 * 60 * S);
    // The new host: as hostRun records it when it takes a run another host had, then a governance of its own.
    await appendRunFact(store, { runId, mainExecutorId: main.executorId }, { type: "run_resumed", data: { downSince: lastWork.toISOString() } });
    const governance = createRunGovernance({ db: ctx.db.database, clock, post: poster(store, runId), caps });
    return { runId, main, child, governance };
  }

  it("a Child resumed 9 minutes after a crash goes on: 10 s hosted of its 90 s", async () => {
    const { child, governance } = await crashedAndResumed();
    clock.advance(5 * S);
    const v = await governance.beforeModelCall(child, { model: SONNET, inputTokens: 100, maxTokens: 100 });
    assert.equal(v.ok, true, (v as Extract<Verdict, { ok: false }>).reason);
    // Its deadline is what is left of its 90 s hosted: 75 s from now.
    assert.equal((v as { deadline?: number }).deadline, clock.now().getTime() + 75 * S);
    const tools = await governance.beforeToolCalls(child, [{ toolUseId: "toolu_1", name: "web_search" }]);
    assert.equal(tools[0].ok, true);
  });

  it("is stopped once its hosted time is used, saying how much was hosted and how much was not counted", async () => {
    const { child, governance } = await crashedAndResumed();
    clock.advance(85 * S);
    const v = await governance.beforeModelCall(child, { model: SONNET, inputTokens: 100, maxTokens: 100 });
    assert.equal(v.ok, false);
    const refusal = v as Extract<Verdict, { ok: false }>;
    assert.equal(refusal.limit, "executor_wall_clock");
    assert.equal(refusal.reason, "wall clock of 90 s used (95 s hosted since admission; 540 s while the run had no host are not counted)");
  });

  it("the run's wall clock and its time-left reminders count hosted time too", async () => {
    const { main, governance } = await crashedAndResumed({ run: { wallClockMs: 10 * 60 * S }, main: { wallClockMs: 10 * 60 * S } });
    clock.advance(5 * S);
    const v = await governance.beforeModelCall(main, { model: SONNET, inputTokens: 100, maxTokens: 100 });
    assert.equal(v.ok, true);
    assert.deepEqual(v.events.filter((e) => e.type === "reminder_raised"), [], "15 s hosted of 10 min is no time reminder (555 s since the start would be past 80%)");
  });
});
