import assert from "node:assert/strict";
import { it } from "node:test";
import { sql } from "kysely";
import { type ExecutorState } from "../../actors/fold/executorState.ts";
import { manualClock } from "../../core/clock.ts";
import { type EventStore, type RecordedEvent, createEventStore, executorStreamId } from "../../events/index.ts";
import {
  type CapsRequest,
  type Verdict,
  createRunGovernance,
  readRunBudget,
  resolveCaps,
} from "../../governance/index.ts";
import type { Draft } from "../../events/index.ts";
import { WEB_SEARCH_MICROS } from "../../governance/index.ts";
import { releaseOpenReservations } from "../../db/releaseOpenReservations.ts";
import { claimReminderKeys } from "../../db/runReminders.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { admit, poster, record } from "./fixtures.ts";

const SONNET = "claude-sonnet-4-5";

/** A turn whose model call ran `searches` server-side searches, as the runner records it. */
const searchedTurn = (s: ExecutorState, searches: number): Draft => ({
  type: "turn",
  data: {
    turn: s.turn + 1,
    request: { model: SONNET, messageCount: 1, toolNames: ["web_search"], digest: "0".repeat(64) },
    response: { content: [{ type: "text", text: "searched" }], stopReason: "end_turn" },
    usage: { inputTokens: 10, outputTokens: 10, webSearchRequests: searches },
    model: SONNET,
    provider: "anthropic",
    scripted: false,
    latencyMs: 1,
  },
});

forEachEngine("run governance", (ctx) => {
  const clock = manualClock();
  let store: EventStore;

  /** A run with Main admitted, a governance over it with these caps, and a real outside writer. */
  async function setup(request: CapsRequest = {}) {
    store ??= createEventStore(ctx.db.database, { clock });
    const runId = uniqueId("run");
    const governance = createRunGovernance({ db: ctx.db.database, clock, post: poster(store, runId), caps: resolveCaps(request) });
    const main = await admit(store, { runId, executorId: uniqueId("main") });
    await governance.openRun(runId);
    return { runId, governance, main };
  }
  const child = (main: ExecutorState, profile = "web-explorer", limits = {}) =>
    admit(store, { runId: main.runId, executorId: uniqueId("child"), parent: main, profile, limits });
  const typesIn = async (s: ExecutorState) => (await store.readStream(s.streamId)).map((e) => e.type);
  const reminders = async (s: ExecutorState) =>
    (await store.readStream(executorStreamId(s.executorId))).filter((e): e is RecordedEvent<"reminder_raised"> => e.type === "reminder_raised").map((e) => e.data.key);
  const refused = (v: Verdict) => {
    assert.equal(v.ok, false, "expected a refusal");
    return v as Extract<Verdict, { ok: false }>;
  };

  it("reserves the worst case, settles the real usage and returns both events for the turn's append", async () => {
    const { runId, governance, main } = await setup();
    const verdict = await governance.beforeModelCall(main, { model: SONNET, inputTokens: 1000, maxTokens: 500 });
    assert.ok(verdict.ok && verdict.reservation);
    assert.deepEqual([verdict.reservation.tokens, verdict.reservation.costMicros], [1500, 1000 * 3 + 500 * 15]);
    assert.equal((await readRunBudget(ctx.db.database, runId))!.totals.reservedTokens, 1500);

    const drafts = await governance.afterModelCall(main, verdict.reservation, { inputTokens: 800, outputTokens: 200 });
    assert.deepEqual(drafts.map((d) => d.type), ["budget_reserved", "budget_settled"]);
    assert.deepEqual(drafts[1].data, {
      reservationId: verdict.reservation.reservationId,
      actual: { tokens: 1000, costMicros: 800 * 3 + 200 * 15, inputTokens: 800, outputTokens: 200 },
    });
    await record(store, main, drafts);
    const row = (await readRunBudget(ctx.db.database, runId))!;
    assert.deepEqual([row.totals.spentTokens, row.totals.reservedTokens, row.totals.spentCostMicros, row.openReservations], [1000, 0, 5400, 0]);
    assert.deepEqual(row.executorSpent, { [main.executorId]: 1000 });
  });

  it("refuses a call that does not fit before it is made, records why, and reserves nothing", async () => {
    const { runId, governance, main } = await setup({ run: { maxTokens: 10_000 } });
    const v = refused(await governance.beforeModelCall(main, { model: SONNET, inputTokens: 8000, maxTokens: 4096 }));
    assert.equal(v.limit, "run_tokens");
    assert.match(v.reason, /run token budget of 10,000: 0 used and 0 reserved, the next call needs up to 12,096/);
    assert.deepEqual(v.events.map((e) => e.type), ["budget_refused"]);
    assert.deepEqual((v.events[0].data as { requested: unknown }).requested, { tokens: 12_096, costMicros: 8000 * 3 + 4096 * 15 });
    await record(store, main, v.events);
    assert.equal((await readRunBudget(ctx.db.database, runId))!.totals.reservedTokens, 0);
    // A smaller call still fits.
    assert.equal((await governance.beforeModelCall(main, { model: SONNET, inputTokens: 5000, maxTokens: 4096 })).ok, true);
  });

  it("refuses on the cost cap and on a Child's own token cap, and tells Main which Child stopped", async () => {
    const { governance, main } = await setup({ run: { maxCostMicros: 20_000 }, investigate: { maxTokens: 5000 } });
    const v = refused(await governance.beforeModelCall(main, { model: "claude-opus-4-1", inputTokens: 1000, maxTokens: 1000 }));
    assert.equal(v.limit, "run_cost");

    const c = await child(main);
    const first = await governance.beforeModelCall(c, { model: "claude-haiku-4-5", inputTokens: 2000, maxTokens: 1000 });
    assert.ok(first.ok);
    await record(store, c, await governance.afterModelCall(c, first.reservation, { inputTokens: 2000, outputTokens: 1000 }));
    const second = refused(await governance.beforeModelCall(c, { model: "claude-haiku-4-5", inputTokens: 2000, maxTokens: 1000 }));
    assert.equal(second.limit, "executor_tokens");
    assert.match(second.reason, /token budget of 5,000 for this executor: 3,000 used, the next call needs up to 3,000/);
    assert.deepEqual(await reminders(main), [`child_limit:${c.executorId}:executor_tokens`]);
    assert.ok(!second.events.some((e) => e.type === "reminder_raised"), "a Child's reminders go to Main, not into its own stream");
  });

  it("raises the 50% and 80% facts once per run: as drafts for Main, posted to Main from a Child, never again from another process", async () => {
    const { runId, governance, main } = await setup({ run: { maxTokens: 10_000 } });
    const spend = async (g: typeof governance, s: ExecutorState, tokens: number) => {
      const v = await g.beforeModelCall(s, { model: SONNET, inputTokens: tokens, maxTokens: 0 + 1 });
      assert.ok(v.ok, `expected room for ${tokens}`);
      const drafts = await g.afterModelCall(s, v.reservation, { inputTokens: tokens, outputTokens: 0 });
      await record(store, s, [...v.events, ...drafts]);
      await g.settled(); // a Child's settle (and the reminder it posts) is written beside its turn
      return drafts.filter((d) => d.type === "reminder_raised").map((d) => (d.data as { key: string }).key);
    };
    assert.deepEqual(await spend(governance, main, 5000), ["run_tokens@50"]);
    const c = await child(main, "compute-analyst");
    assert.deepEqual(await spend(governance, c, 3000), [], "a Child's reminder is posted, not returned");
    assert.deepEqual(await reminders(main), ["run_tokens@50", "run_tokens@80"]);

    const other = createRunGovernance({ db: ctx.db.database, clock, post: poster(store, runId) });
    assert.deepEqual(await spend(other, main, 500), []);
    assert.deepEqual(await spend(governance, c, 500), []);
    assert.deepEqual(await reminders(main), ["run_tokens@50", "run_tokens@80"], "the 80% fact is raised once");
    const [eighty] = (await store.readStream(main.streamId)).filter((e) => e.type === "reminder_raised").slice(1) as RecordedEvent<"reminder_raised">[];
    assert.match(eighty.data.text, /8,000 of its 10,000 tokens \(80%/);
  });

  it("stops an executor at its turns, tool calls, delegation depth and fan-out, counting a turn's calls once", async () => {
    const { governance, main } = await setup({ delegation: { maxFanOut: 2, maxDepth: 1 }, child: { maxToolCalls: 25 } });
    const turnsDone = { ...main, turn: 5, limits: { ...main.limits, maxTurns: 5 } };
    assert.equal(refused(await governance.beforeModelCall(turnsDone, { model: SONNET, inputTokens: 10, maxTokens: 10 })).limit, "executor_turns");
    const oks = (vs: Verdict[]) => vs.map((v) => v.ok);

    const c = await child(main, "compute-analyst");
    const [v] = await governance.beforeToolCalls({ ...c, toolCalls: 25 }, [{ toolUseId: "t1", name: "search_corpus" }]);
    assert.equal(refused(v!).limit, "executor_tool_calls");
    assert.match(refused(v!).reason, /tool call limit reached \(25 of 25 calls for this executor\)/);
    assert.deepEqual(v!.events[0].data, { purpose: "tool", limit: "executor_tool_calls", reason: refused(v!).reason, toolUseId: "t1" });

    // A turn's calls, decided against the intents recorded before it: each allowed call counts once.
    const calls = ["a", "b", "c"].map((id) => ({ toolUseId: id, name: "search_corpus" }));
    const at22 = await governance.beforeToolCalls({ ...c, toolCalls: 22 }, calls);
    assert.deepEqual(oks(at22), [true, true, true]);
    const at23 = await governance.beforeToolCalls({ ...c, toolCalls: 23 }, calls);
    assert.deepEqual(oks(at23), [true, true, false]);
    assert.match(refused(at23[2]!).reason, /\(25 of 25 calls/);
    assert.deepEqual(at23[2]!.events.map((e) => e.type), ["budget_refused"]);
    // Nothing is remembered between calls: asking again about the same state gives the same answer.
    assert.deepEqual(oks(await governance.beforeToolCalls({ ...c, toolCalls: 23 }, calls)), [true, true, false]);
    const at24 = await governance.beforeToolCalls({ ...c, toolCalls: 24 }, calls);
    assert.deepEqual(oks(at24), [true, false, false], "after a refusal the rest of the turn is refused");
    assert.deepEqual(at24.map((x) => x.events.length), [0, 1, 0], "the refusal is recorded once");

    const [deep] = await governance.beforeToolCalls(c, [{ toolUseId: "d", name: "delegate" }]);
    assert.equal(refused(deep!).limit, "delegation_depth");
    const fan = await governance.beforeToolCalls(main, ["d1", "d2", "d3"].map((id) => ({ toolUseId: id, name: "delegate" })));
    assert.deepEqual(oks(fan), [true, true, false]);
    assert.equal(refused(fan[2]!).limit, "delegation_fan_out");
    assert.match(refused(fan[2]!).reason, /2 of 2 Children/);
  });

  it("stops at wall clocks by the injected clock and raises time left for Main", async () => {
    const { governance, main } = await setup({ run: { wallClockMs: 600_000 } });
    const c = await child(main, "web-explorer");
    clock.advance(91_000);
    assert.equal(refused(await governance.beforeModelCall(c, { model: SONNET, inputTokens: 10, maxTokens: 10 })).limit, "executor_wall_clock");
    clock.advance(400_000);
    const v = await governance.beforeModelCall(main, { model: SONNET, inputTokens: 10, maxTokens: 10 });
    assert.ok(v.ok);
    assert.deepEqual(v.events.map((e) => (e.data as { key: string }).key), ["run_wall_clock@80"]);
    await governance.afterModelCall(main, v.reservation, null);
    clock.advance(200_000);
    assert.equal(refused(await governance.beforeModelCall(main, { model: SONNET, inputTokens: 10, maxTokens: 10 })).limit, "run_wall_clock");
  });

  it("tells Main which Children finished and which stopped early, once", async () => {
    const { governance, main } = await setup();
    const withChildren: ExecutorState = {
      ...main,
      children: {
        done: { toolUseId: "t1", consumed: true, handoff: { executionState: "completed", confidence: "high" } },
        short: { toolUseId: "t2", consumed: true, handoff: { executionState: "partial", confidence: "low" } },
      },
    };
    const v = await governance.beforeModelCall(withChildren, { model: SONNET, inputTokens: 10, maxTokens: 10 });
    assert.ok(v.ok);
    assert.deepEqual(v.events.map((e) => (e.data as { key: string }).key), ["child_finished:done", "child_stopped_early:short"]);
    await governance.afterModelCall(withChildren, v.reservation, { inputTokens: 10, outputTokens: 10 });
    const again = await governance.beforeModelCall(withChildren, { model: SONNET, inputTokens: 10, maxTokens: 10 });
    assert.ok(again.ok);
    assert.deepEqual(again.events, []);
  });

  it("frees a reminder's key when it could not be posted to Main, so the fact is raised later", async () => {
    const { runId, main } = await setup({ run: { maxTokens: 10_000 } });
    let failing = true;
    const post = poster(store, runId);
    const governance = createRunGovernance({
      db: ctx.db.database,
      clock,
      post: (id, drafts) => (failing ? Promise.reject(new Error("Main's stream is unreachable")) : post(id, drafts)),
    });
    const c = await child(main, "compute-analyst");
    const spend = async (tokens: number) => {
      const v = await governance.beforeModelCall(c, { model: SONNET, inputTokens: tokens, maxTokens: 1 });
      assert.ok(v.ok);
      await record(store, c, await governance.afterModelCall(c, v.reservation, { inputTokens: tokens, outputTokens: 0 }));
      await governance.settled();
    };
    await spend(6000);
    assert.deepEqual(await reminders(main), []);
    failing = false;
    await spend(100);
    assert.deepEqual(await reminders(main), ["run_tokens@50"]);
  });

  it("writes a Child's settle beside its turn: the drafts do not wait for the ledger, the Child's next call does, and a failed settle is thrown there", async () => {
    const { runId, governance, main } = await setup();
    const c = await child(main);
    const v = await governance.beforeModelCall(c, { model: SONNET, inputTokens: 1000, maxTokens: 500 });
    const m = await governance.beforeModelCall(main, { model: SONNET, inputTokens: 10, maxTokens: 10 });
    assert.ok(v.ok && m.ok);
    // The run's ledger row is gone, so no settle can be written.
    await sql`DELETE FROM ariadne_run_budgets WHERE run_id = ${runId}`.execute(ctx.db.database.db);
    const drafts = await governance.afterModelCall(c, v.reservation, { inputTokens: 800, outputTokens: 200 });
    assert.deepEqual(drafts.map((d) => d.type), ["budget_reserved", "budget_settled"], "a Child's drafts are not held by its settle");
    await assert.rejects(governance.afterModelCall(main, m.reservation, null), /no budget row to settle against/, "Main's drafts wait for the ledger");
    await assert.rejects(governance.beforeModelCall(c, { model: SONNET, inputTokens: 10, maxTokens: 10 }), /no budget row to settle against/);
  });

  // PostgreSQL only: PGlite has one connection, so a transaction holding the row would hold every query.
  if (ctx.engine === "postgres") {
    it("a Child's next reservation waits for its own settle (PostgreSQL: another transaction holds the ledger's row)", async () => {
      const { runId, governance, main } = await setup();
      const c = await child(main);
      const v = await governance.beforeModelCall(c, { model: SONNET, inputTokens: 1000, maxTokens: 500 });
      assert.ok(v.ok);
      let letGo!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = ctx.db.database.db.transaction().execute(async (tx) => {
        await sql`SELECT 1 FROM ariadne_run_budgets WHERE run_id = ${runId} FOR UPDATE`.execute(tx);
        locked();
        await new Promise<void>((r) => (letGo = r));
      });
      await isLocked;
      const drafts = await governance.afterModelCall(c, v.reservation, { inputTokens: 800, outputTokens: 200 });
      assert.equal(drafts.length, 2);
      let reserved = false;
      const next = governance.beforeModelCall(c, { model: SONNET, inputTokens: 100, maxTokens: 100 }).then((r) => ((reserved = true), r));
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(reserved, false, "the next reservation went ahead of the executor's own settle");
      letGo();
      await holder;
      assert.ok((await next).ok);
      const budget = (await readRunBudget(ctx.db.database, runId))!;
      assert.deepEqual([budget.totals.spentTokens, budget.totals.reservedTokens, budget.openReservations], [1000, 200, 1]);
    });
  }

  it("a Child's turn in the log whose settle never reached the ledger (the process died between them) is counted at recovery", async () => {
    const { runId, governance, main } = await setup();
    const c = await child(main);
    const v = await governance.beforeModelCall(c, { model: SONNET, inputTokens: 1000, maxTokens: 500 });
    assert.ok(v.ok && v.reservation);
    const { reservationId, tokens, costMicros } = v.reservation;
    // The drafts afterModelCall would return, appended; the ledger never told.
    await record(store, c, [
      { type: "budget_reserved", data: { reservationId, purpose: "model", model: SONNET, amount: { tokens, costMicros } } },
      { type: "budget_settled", data: { reservationId, actual: { tokens: 1100, costMicros: 4500, inputTokens: 1000, outputTokens: 100 } } },
    ]);
    const { totals } = (await readRunBudget(ctx.db.database, runId))!;
    assert.deepEqual([totals.spentTokens, totals.reservedTokens], [0, 1500]);
    await releaseOpenReservations(ctx.db.database, runId);
    const after = (await readRunBudget(ctx.db.database, runId))!;
    assert.deepEqual([after.totals.spentTokens, after.totals.spentCostMicros, after.totals.reservedTokens, after.openReservations], [1100, 4500, 0, 0]);
    // The settle arriving late (after the recount) finds its reservation closed and counts nothing twice.
    await governance.afterModelCall(c, v.reservation, { inputTokens: 1000, outputTokens: 100 });
    await governance.settled();
    assert.equal((await readRunBudget(ctx.db.database, runId))!.totals.spentTokens, 1100);
  });

  it("settles a reservation once", async () => {
    const { governance, main } = await setup();
    const v = await governance.beforeModelCall(main, { model: SONNET, inputTokens: 10, maxTokens: 10 });
    assert.ok(v.ok);
    await governance.afterModelCall(main, v.reservation, null);
    await assert.rejects(governance.afterModelCall(main, v.reservation, null), /settle each reservation once/);
  });

  it("recovery releases open reservations, recomputes spent from the recorded settles and frees unrecorded reminder keys", async () => {
    const { runId, governance, main } = await setup();
    const c = await child(main, "compute-analyst");
    const v1 = await governance.beforeModelCall(c, { model: SONNET, inputTokens: 1000, maxTokens: 1000 });
    assert.ok(v1.ok);
    await record(store, c, await governance.afterModelCall(c, v1.reservation, { inputTokens: 1000, outputTokens: 300 }));
    // Settled in the ledger but the turn never reached the log: the process died before its append.
    const lost = await governance.beforeModelCall(c, { model: SONNET, inputTokens: 2000, maxTokens: 1000 });
    assert.ok(lost.ok);
    await governance.afterModelCall(c, lost.reservation, { inputTokens: 2000, outputTokens: 1000 });
    // Reserved, and the process died during the call.
    assert.ok((await governance.beforeModelCall(c, { model: SONNET, inputTokens: 500, maxTokens: 500 })).ok);
    await claimReminderKeys(ctx.db.database, runId, ["run_tokens@50"]);

    const before = (await readRunBudget(ctx.db.database, runId))!;
    assert.deepEqual([before.totals.spentTokens, before.totals.reservedTokens, before.openReservations], [4300, 1000, 1]);
    await releaseOpenReservations(ctx.db.database, runId);
    const after = (await readRunBudget(ctx.db.database, runId))!;
    assert.deepEqual([after.totals.spentTokens, after.totals.reservedTokens, after.openReservations], [1300, 0, 0]);
    assert.equal(after.totals.spentCostMicros, 1000 * 3 + 300 * 15);
    assert.deepEqual(after.executorSpent, { [c.executorId]: 1300 });
    assert.deepEqual([...(await claimReminderKeys(ctx.db.database, runId, ["run_tokens@50"]))], ["run_tokens@50"], "the unrecorded key is free again");
    assert.deepEqual(await typesIn(c), ["executor_admitted", "budget_reserved", "budget_settled"]);
  });
  it("a call that may search server-side reserves its searches, settles them at 10 USD per 1,000, and the run's search budget lowers, then stops, them", async () => {
    const { governance, main } = await setup({ search: { maxSearches: 4 } });
    let c = await child(main);
    const plan = { model: SONNET, inputTokens: 1000, maxTokens: 500, maxSearches: 3 };
    const first = await governance.beforeModelCall(c, plan);
    assert.ok(first.ok && first.reservation);
    assert.equal(first.searches, 3);
    assert.equal(first.reservation.costMicros, 1000 * 3 + 500 * 15 + 3 * WEB_SEARCH_MICROS);
    const settled = await governance.afterModelCall(c, first.reservation, { inputTokens: 800, outputTokens: 200, webSearchRequests: 3 });
    assert.equal((settled[1]!.data as { actual: { costMicros: number } }).actual.costMicros, 800 * 3 + 200 * 15 + 3 * WEB_SEARCH_MICROS);
    // The searches are read from the log's turns: three of four run.
    c = await record(store, c, [...settled, searchedTurn(c, 3)]);
    const second = await governance.beforeModelCall(c, plan);
    assert.ok(second.ok);
    assert.equal(second.searches, 1, "lowered to what is left");
    c = await record(store, c, [...(await governance.afterModelCall(c, second.reservation, { inputTokens: 10, outputTokens: 10, webSearchRequests: 1 })), searchedTurn(c, 1)]);
    const spent = refused(await governance.beforeModelCall(c, plan));
    assert.equal(spent.limit, "run_searches");
    assert.match(spent.reason, /run search budget of 4 web searches used \(4 run\)/);
    // A call that offers no server-side search is not held to it.
    assert.equal((await governance.beforeModelCall(c, { ...plan, maxSearches: undefined })).ok, true);
  });
});
