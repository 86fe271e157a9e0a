import { test } from "node:test";
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

test("a row finished long after the seal is still seen within about a second, not at the deadline", async () => {
  const run = fakeRun();
  const started = Date.now();
  const waiting = waitForStop({ hub: run.hub, runId: "r", read: run.read, ms: 30_000 });
  await new Promise((r) => setTimeout(r, 50));
  run.send("run_sealed");
  // Past every quick look after the seal (about 4.6 s): a busy host's last write.
  setTimeout(run.finish, 6_500);
  const view = await waiting;
  const ms = Date.now() - started;
  assert.equal(view?.state, "settled");
  assert.ok(ms >= 6_500 && ms < 8_500, `${ms} ms`);
});

test("after Main's settled event alone, the wait goes back to listening once its looks are done", async () => {
  const run = fakeRun();
  const waiting = waitForStop({ hub: run.hub, runId: "r", read: run.read, ms: 10_000 });
  await new Promise((r) => setTimeout(r, 50));
  run.send("settled"); // the Checker and the seal are still to come: no looking once a second meanwhile
  const view = await waiting;
  assert.equal(view?.state, "running");
  // The first read, the looks after the event (nine, over 4.6 s), the read at the deadline: no read a
  // second in the 5 s left, which would make it 17.
  assert.ok(run.reads() <= 12, `${run.reads()} reads`);
});
