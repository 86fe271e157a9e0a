import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { verifyRun } from "../../events/index.ts";
import { cancelByTakeover, hostRun, leaseOwner, submitRun, takeLease } from "../../runs/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { slowOrderRun } from "./slowOrderRun.ts";

const key = generateKeyPairSync("ed25519");

forEachEngine("a run ended by a cancel", (ctx) => {
  test("is sealed by the cancel, signed, as its host would have sealed it: it verifies against the key", async () => {
    // Given: an interrupted run, no live host
    const s = slowOrderRun();
    const { runId } = await submitRun(ctx.store, { question: "Place the order." });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const hosted = hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime: s.build, ttlMs: 60_000 }, lease!);
    await s.counter.started.opened;
    const stopping = hosted.stop("interrupt", 30_000);
    s.open();
    assert.equal((await stopping).kind, "interrupted");
    // When: the whole run is cancelled
    await cancelByTakeover({ database: ctx.db.database, store: ctx.store, sealKey: key.privateKey })({ runId, reason: "not wanted", by: "operator" });
    // Then: Main ended, and the run is sealed with the key
    const result = await verifyRun(ctx.db.database, runId, { publicKey: key.publicKey });
    assert.deepEqual(result.problems, []);
    assert.equal(result.signature?.state, "valid");
  });
});
