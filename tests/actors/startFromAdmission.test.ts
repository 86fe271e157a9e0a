import { test } from "node:test";
import assert from "node:assert/strict";
import type { EventStore } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, delegatingMain, delegation, handoffInput, handoffReply, runtimeWith, within } from "./fixtures.ts";

/** The store, counting the reads that ask for a stream or its version. */
function countingReads(store: EventStore) {
  const reads: string[] = [];
  const wrap = (s: EventStore): EventStore => ({
    ...s,
    readStream: (streamId, options) => (reads.push(`readStream ${streamId}`), s.readStream(streamId, options)),
    streamVersion: (streamId, runId) => (reads.push(`streamVersion ${streamId}`), s.streamVersion(streamId, runId)),
    withFence: (fence) => wrap(s.withFence(fence)),
  });
  return { store: wrap(store), reads };
}

forEachEngine("executors start from their admission", (ctx) => {
  test("Main and its Children start from the admission they just recorded: no read asks for their streams first", async () => {
    const { store, reads } = countingReads(ctx.store);
    const tasks = [delegation("What are ADIV's fees?", "general"), delegation("What does ADIV hold?", "general")];
    const child = new ScriptedModel({ name: "child", policy: () => handoffReply(handoffInput("[general] nothing found.")) });
    const runtime = runtimeWith(store, { main: new ScriptedModel({ name: "main", policy: delegatingMain(tasks) }), child });
    const run = await runtime.startRun("What does ADIV cost and hold?");
    answerOf(await within(10_000, run.result));

    assert.equal(childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId).length, 2);
    assert.deepEqual(reads, []);
  });
});
