import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { describePhases, phasesOf, watchPhases } from "../../bench/capacityPhases.ts";
import type { EventStore, NewEvent } from "../../events/index.ts";
import type { RunGovernance } from "../../governance/index.ts";

test("the tail's phases are the means over the turns whose sum is at or above the p99 of the sums", () => {
  const quick = { append: 2, toolsAndLoop: 1, reserve: 1 };
  // 98 quick turns and two slow ones: the p99 of 100 sums (nearest rank, the 99th) is the lesser slow one's.
  const turns = [...Array.from({ length: 98 }, () => quick), { append: 30, toolsAndLoop: 5, reserve: 15 }, { append: 40, toolsAndLoop: 5, reserve: 15 }];
  const r = phasesOf(turns);
  assert.equal(r.turns, 100);
  assert.equal(r.tailTurns, 2);
  assert.equal(r.p99Ms, 50);
  assert.deepEqual(r.tail, { append: 35, toolsAndLoop: 5, reserve: 15 });
  assert.deepEqual(r.all, { append: 2.66, toolsAndLoop: 1.08, reserve: 1.28 });
  assert.match(describePhases(r), /the 2 turns at or above p99 \(50\.0 ms\): append 35\.0, tools and event loop 5\.0, reservation 15\.0; all 100 turns: append 2\.7/);
});

test("no turns: no figures, not zeros", () => {
  const r = phasesOf([]);
  assert.equal(r.turns, 0);
  assert.ok(Number.isNaN(r.tail.append) && Number.isNaN(r.all.reserve));
});

/**
 * The watch over a store and a governance whose calls take known times: a
 * Child's turn is split at its first append after the reply and at the
 * reservation's start; Main's turns, failed calls and refused reservations
 * make no turn.
 */
test("a Child's turn is split at its first append after the reply and at its next reservation", async () => {
  const watch = watchPhases();
  const fake = {
    async append(_s: string, _v: number, _e: readonly NewEvent[]) {
      await sleep(30);
      return { nextExpectedVersion: 1, positions: [], events: [] };
    },
  } as unknown as EventStore;
  let refuse = false;
  const governance = watch.governance({
    async afterModelCall() {
      return [];
    },
    async beforeModelCall() {
      await sleep(20);
      return refuse ? { ok: false, limit: "tokens", reason: "over", events: [] } : { ok: true, reservation: null, events: [] };
    },
  } as unknown as RunGovernance);
  const store = watch.store(fake);
  const child = { executorId: "c1", role: "child" } as never;
  const main = { executorId: "m", role: "main" } as never;
  const event = (executorId: string) => [{ type: "turn", data: {}, metadata: { executorId } }] as unknown as NewEvent[];
  const usage = { inputTokens: 1, outputTokens: 1 };

  // The Child's turn: reply, two appends (only the first is the turn's), 10 ms of tools, the reservation.
  await governance.afterModelCall(child, null, usage);
  await store.append("s", 0, event("c1"));
  await store.append("s", 1, event("c1"));
  await sleep(10);
  await governance.beforeModelCall(child, {} as never);
  // Main's turn, a failed call (no usage) and a refused reservation: none is a turn.
  await governance.afterModelCall(main, null, usage);
  await store.append("m", 0, event("m"));
  await governance.beforeModelCall(main, {} as never);
  await governance.afterModelCall(child, null, null);
  await store.append("s", 2, event("c1"));
  await governance.beforeModelCall(child, {} as never);
  refuse = true;
  await governance.afterModelCall(child, null, usage);
  await store.append("s", 3, event("c1"));
  await governance.beforeModelCall(child, {} as never);

  const r = watch.report();
  assert.equal(r.turns, 1);
  const { append, toolsAndLoop, reserve } = r.all;
  // Timers fire no earlier than asked; the upper bounds leave a loaded machine room.
  assert.ok(append >= 29 && append < 55, `append ${append}: the first append alone, not both (60)`);
  assert.ok(toolsAndLoop >= 39 && toolsAndLoop < 80, `tools and loop ${toolsAndLoop}: the second append and the 10 ms`);
  assert.ok(reserve >= 19 && reserve < 45, `reserve ${reserve}`);
});
