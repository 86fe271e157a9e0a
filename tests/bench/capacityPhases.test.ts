import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { describePhases, phasesOf, watchPhases } from "../../bench/capacityPhases.ts";
import type { EventStore, NewEvent } from "../../events/index.ts";
import type { RunGovernance } from "../../governance/index.ts";

test("the tail's phases are the means over the turns whose sum is at or above the p99 of the sums; the append is beside them", () => {
  const quick = { toReservation: 2, reserve: 1, commitWait: 1, append: 2 };
  // 98 quick turns and two slow ones: the p99 of 100 sums (nearest rank, the 99th) is the lesser slow one's.
  const turns = [
    ...Array.from({ length: 98 }, () => quick),
    { toReservation: 30, reserve: 15, commitWait: 5, append: 20 },
    { toReservation: 40, reserve: 15, commitWait: 5, append: 60 },
  ];
  const r = phasesOf(turns);
  assert.equal(r.turns, 100);
  assert.equal(r.tailTurns, 2);
  assert.equal(r.p99Ms, 50, "the sum leaves the append out");
  assert.deepEqual(r.tail, { toReservation: 35, reserve: 15, commitWait: 5, append: 40 });
  assert.deepEqual(r.all, { toReservation: 2.66, reserve: 1.28, commitWait: 1.08, append: 2.76 });
  assert.match(describePhases(r), /the 2 turns at or above p99 \(50\.0 ms\): to the reservation 35\.0, reservation 15\.0, commit wait 5\.0 \(append 40\.0\); all 100 turns: to the reservation 2\.7/);
});

test("no turns: no figures, not zeros", () => {
  const r = phasesOf([]);
  assert.equal(r.turns, 0);
  assert.ok(Number.isNaN(r.tail.toReservation) && Number.isNaN(r.all.append));
});

/** A store whose appends take `ms` (or until `until` resolves), and a governance whose reservations take 20 ms (refused when `refuse()`). */
function fakes(appendMs: number, refuse: () => boolean, until?: Promise<void>) {
  const store = {
    async append(_s: string, _v: number, _e: readonly NewEvent[]) {
      await (until ?? sleep(appendMs));
      return { nextExpectedVersion: 1, positions: [], events: [] };
    },
  } as unknown as EventStore;
  const governance = {
    async afterModelCall() {
      return [];
    },
    async beforeModelCall() {
      await sleep(20);
      return refuse() ? { ok: false, limit: "tokens", reason: "over", events: [] } : { ok: true, reservation: null, events: [] };
    },
  } as unknown as RunGovernance;
  return { store, governance };
}

const child = { executorId: "c1", role: "child" } as never;
const main = { executorId: "m", role: "main" } as never;
const event = (executorId: string) => [{ type: "turn", data: {}, metadata: { executorId } }] as unknown as NewEvent[];
const usage = { inputTokens: 1, outputTokens: 1 };

/** Timers fire no earlier than asked, and as late as a loaded machine makes them: only lower bounds and identities are asserted. */
test("a turn committed before its calls: the append and the calls come before the reservation, nothing waits after it", async () => {
  let refuse = false;
  const watch = watchPhases();
  const { store: s, governance: g } = fakes(30, () => refuse);
  const store = watch.store(s);
  const governance = watch.governance(g);

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
  const { append, toReservation, reserve, commitWait } = r.all;
  assert.ok(append >= 29, `append ${append}`);
  // The second append (30 ms) and the tools (10 ms) come after the first append's end, before the reservation.
  assert.ok(toReservation - append >= 39, `to the reservation ${toReservation}: the first append alone is the turn's (${append})`);
  assert.ok(reserve >= 19, `reservation ${reserve}`);
  assert.equal(commitWait, 0);
});

test("an append still running once the reservation is made: what is left of it is the commit wait", async () => {
  const watch = watchPhases();
  let commit!: () => void;
  const { store: s, governance: g } = fakes(0, () => false, new Promise<void>((resolve) => (commit = resolve)));
  const store = watch.store(s);
  const governance = watch.governance(g);

  // The append commits 20 ms after the reservation ends.
  await governance.afterModelCall(child, null, usage);
  const appending = store.append("s", 0, event("c1"));
  await sleep(10);
  await governance.beforeModelCall(child, {} as never);
  assert.equal(watch.report().turns, 0, "not counted before its append ends");
  await sleep(20);
  commit();
  await appending;

  const r = watch.report();
  assert.equal(r.turns, 1);
  const { append, toReservation, reserve, commitWait } = r.all;
  assert.ok(toReservation >= 9 && reserve >= 19 && append >= 49, JSON.stringify(r.all));
  // The append ended after the reservation: the phases add up to it, the commit wait being what was left.
  assert.ok(commitWait >= 19, `commit wait ${commitWait}`);
  assert.ok(Math.abs(toReservation + reserve + commitWait - append) < 1e-6, JSON.stringify(r.all));
});
