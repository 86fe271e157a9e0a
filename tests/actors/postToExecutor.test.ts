import { test } from "node:test";
import assert from "node:assert/strict";
import { postToExecutor } from "../../actors/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { admittedData } from "./fixtures.ts";
import { executorStreamId } from "../../events/index.ts";

const reminder = (n: number) => ({ type: "reminder_raised" as const, data: { reminderId: `rem-${n}`, key: `k-${n}`, text: `fact ${n}`, facts: { n } } });

forEachEngine("postToExecutor: the outside writer's side of the inbox", (ctx) => {
  test("concurrent posts to one executor all land, in one contiguous stream, each retried over the others' conflicts", async () => {
    const executorId = uniqueId("inbox");
    await ctx.store.append(executorStreamId(executorId), 0, [{ type: "executor_admitted", data: admittedData("child"), metadata: { runId: "run-inbox", executorId } }]);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => postToExecutor(ctx.store, executorId, [reminder(i)])));
    assert.ok(results.every((r) => r.ok));
    const stream = await ctx.store.readStream(executorStreamId(executorId));
    assert.deepEqual(stream.map((e) => e.streamVersion), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(stream.slice(1).map((e) => (e.data as { reminderId: string }).reminderId).sort(), Array.from({ length: 8 }, (_, i) => `rem-${i}`).sort());
    assert.ok(stream.slice(1).every((e) => e.metadata.runId === "run-inbox" && e.metadata.executorId === executorId));
    assert.equal((await ctx.store.verify(executorStreamId(executorId))).ok, true);
  });

  test("refuses an executor that does not exist or is final, and writes nothing", async () => {
    const missing = await postToExecutor(ctx.store, uniqueId("nobody"), [reminder(1)]);
    assert.deepEqual([missing.ok, !missing.ok && missing.reason], [false, "not_found"]);

    const executorId = uniqueId("final");
    await ctx.store.append(executorStreamId(executorId), 0, [
      { type: "executor_admitted", data: admittedData("child"), metadata: { runId: "run-inbox", executorId } },
      { type: "failed", data: { reason: "test", kind: "test" }, metadata: { runId: "run-inbox", executorId } },
    ]);
    const final = await postToExecutor(ctx.store, executorId, [reminder(1)]);
    assert.equal(final.ok, false);
    assert.match(!final.ok ? final.message : "", /is already failed; nothing more can reach it/);
    assert.equal(await ctx.store.streamVersion(executorStreamId(executorId)), 2);
  });
});
