import { test } from "node:test";
import assert from "node:assert/strict";
import { joinNotices } from "../../db/openDatabase.ts";
import { EVENTS_CHANNEL, watchAppends } from "../../events/index.ts";
import { decodeAppendNotices, encodeAppendNotice } from "../../events/appendNotices.ts";
import { eventually } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

test("notices are joined into payloads under PostgreSQL's 8000-byte limit, none split or lost", () => {
  const notices = Array.from({ length: 400 }, (_, i) => encodeAppendNotice({ runId: `run-${i}`, streamId: `executor-${"x".repeat(40)}-${i}`, version: i }));
  const payloads = joinNotices(notices);
  assert.ok(payloads.length > 1, "400 notices of ~70 bytes need more than one payload");
  for (const p of payloads) assert.ok(Buffer.byteLength(p) < 8000, `a payload of ${Buffer.byteLength(p)} bytes`);
  assert.deepEqual(payloads.flatMap((p) => decodeAppendNotices(p)!), notices.map((n) => decodeAppendNotices(n)![0]));
});

test("a notice without names (an older process's empty payload, the stream id the old SQL append sent) says anything may have changed", () => {
  assert.equal(decodeAppendNotices(""), null);
  assert.equal(decodeAppendNotices("executor-abc"), null);
  assert.deepEqual(joinNotices(["", encodeAppendNotice({ runId: "r", streamId: "s", version: 1 })]), [""]);
});

forEachEngine("append notices", (ctx) => {
  test("an append reaches the watch of its run with its stream and version, not another run's watch; an empty notice reaches both as 'anything'", async () => {
    const heard = { a: [] as string[], b: [] as string[], anything: 0 };
    const stream = `notice-stream-${Date.now()}`;
    const stopA = await watchAppends(ctx.store.database, {
      runId: "run-a",
      onAppend: (streamId, version) => heard.a.push(`${streamId}@${version}`),
      onAnything: () => heard.anything++,
    });
    const stopB = await watchAppends(ctx.store.database, {
      runId: "run-b",
      onAppend: (streamId, version) => heard.b.push(`${streamId}@${version}`),
      onAnything: () => heard.anything++,
    });
    try {
      await ctx.store.append(stream, 0, [turnEvent("run-a", "executor-a", 1)]);
      await eventually(() => heard.a.length > 0);
      assert.deepEqual(heard.a, [`${stream}@1`]);
      ctx.store.database.notify?.(EVENTS_CHANNEL);
      await eventually(() => heard.anything === 2);
      assert.deepEqual(heard.b, []);
    } finally {
      await stopA();
      await stopB();
    }
  });
});
