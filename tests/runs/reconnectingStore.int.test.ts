import { test } from "node:test";
import assert from "node:assert/strict";
import { ConcurrencyError } from "../../core/errors.ts";
import type { EventStore } from "../../events/index.ts";
import { reconnectingStore } from "../../runs/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "../events/fixtures.ts";

/** The real store, whose connection "drops" around some appends: before the call, or after its commit. */
function flaky(store: EventStore, plan: ("before" | "after" | "ok")[]): EventStore {
  const lost = () => Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
  return {
    ...store,
    async append(streamId, expected, events) {
      const step = plan.shift() ?? "ok";
      if (step === "before") throw lost();
      const result = await store.append(streamId, expected, events);
      if (step === "after") throw lost();
      return result;
    },
  };
}

forEachEngine("reconnecting store", (ctx) => {
  test("an append whose connection drops before the call is retried and written once", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    const store = reconnectingStore(flaky(ctx.store, ["before", "before"]));
    const r = await store.append(stream, 0, [turnEvent(run, stream, 1)]);
    assert.equal(r.nextExpectedVersion, 1);
    assert.equal((await ctx.store.readStream(stream)).length, 1);
  });

  test("an append that committed but lost its reply is not doubled: the retry finds it and returns it", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    const store = reconnectingStore(flaky(ctx.store, ["after"]));
    const r = await store.append(stream, 0, [turnEvent(run, stream, 1), turnEvent(run, stream, 2)]);
    const stored = await ctx.store.readStream(stream);
    assert.equal(stored.length, 2);
    assert.deepEqual(r.positions, stored.map((e) => e.globalPosition));
    assert.equal(r.nextExpectedVersion, 2);
    assert.equal((await ctx.store.verify(stream)).ok, true);
  });

  test("after a lost reply, someone else's events at that version are still a ConcurrencyError", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1, "someone else")]);
    const store = reconnectingStore(flaky(ctx.store, ["before"]));
    await assert.rejects(store.append(stream, 0, [turnEvent(run, stream, 1, "mine")]), ConcurrencyError);
  });
}, { endToEnd: true });
