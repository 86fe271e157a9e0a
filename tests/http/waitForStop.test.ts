import { type TestContext, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import type { EventHub, Listener } from "../../http/live/eventHub.ts";
import { waitForStop } from "../../http/live/waitForStop.ts";
import type { RunView } from "../../http/runs/runsPort.ts";

/** A hub that delivers what the test sends it, and a run whose row the test finishes when it likes. */
function fakeRun() {
  let listener: Listener | undefined;
  let state: RunView["state"] = "running";
  let reads = 0;
  const hub: EventHub = {
    attach: (_runId, l) => ((listener = l), { horizon: async () => ({}) as never, detach: () => (listener = undefined) }),
    health: () => ({ ok: true }),
    close: async () => {},
  };
  return {
    hub,
    read: async () => (reads++, { id: "r", state } as RunView),
    send: (type: string) => listener?.({ type } as RecordedEvent),
    finish: () => void (state = "settled"),
    reads: () => reads,
  };
}

/**
 * Runs a wait on node:test's mocked clock (setTimeout and Date), 10 ms a step,
 * doing each of `at`'s actions when the clock reaches its time: what is shown
 * is when the wait looks and answers on its own clock, not how fast a loaded
 * machine lets it run. Answers the wait's answer and the clock when it came.
 */
async function onMockedClock<T>(t: TestContext, wait: () => Promise<T>, at: Record<number, () => void>, untilMs: number): Promise<{ value: T; atMs: number }> {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  let answered: { value: T; atMs: number } | undefined;
  const waiting = wait().then((value) => (answered = { value, atMs: Date.now() }));
  for (let now = 0; !answered && now <= untilMs; now += 10) {
    at[now]?.();
    t.mock.timers.tick(10);
    // The wait's reads are promises: let them settle before the clock moves on.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
  await waiting;
  return answered!;
}

test("a row finished long after the seal is still seen within about a second, not at the deadline", async (t) => {
  const run = fakeRun();
  const { value: view, atMs } = await onMockedClock(
    t,
    () => waitForStop({ hub: run.hub, runId: "r", read: run.read, ms: 30_000 }),
    // Past every quick look after the seal (about 4.6 s): a busy host's last write.
    { 50: () => run.send("run_sealed"), 6_500: run.finish },
    31_000,
  );
  assert.equal(view?.state, "settled");
  assert.ok(atMs >= 6_500 && atMs <= 7_500, `answered at ${atMs} ms on the wait's clock`);
});

test("after Main's settled event alone, the wait goes back to listening once its looks are done", async (t) => {
  const run = fakeRun();
  // The Checker and the seal are still to come: no looking once a second meanwhile.
  const { value: view, atMs } = await onMockedClock(t, () => waitForStop({ hub: run.hub, runId: "r", read: run.read, ms: 10_000 }), { 50: () => run.send("settled") }, 11_000);
  assert.equal(view?.state, "running");
  assert.ok(atMs >= 10_000, `answered at ${atMs} ms, at the deadline`);
  // The first read, the looks after the event (nine, over 4.6 s), the read at the deadline: no read a
  // second in the 5 s left, which would make it 17.
  assert.ok(run.reads() <= 12, `${run.reads()} reads`);
});
