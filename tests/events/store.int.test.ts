import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ConcurrencyError, ValidationError } from "../../core/errors.ts";
import { GENESIS_HASH, type NewEvent } from "../../events/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { cancelledEvent, turnEvent } from "./fixtures.ts";

forEachEngine("event store", (ctx) => {
  test("appends and reads back a stream with versions, positions, ids and metadata", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    const first = await ctx.store.append(stream, 0, [turnEvent(run, stream, 1), turnEvent(run, stream, 2)]);
    const second = await ctx.store.append(stream, first.nextExpectedVersion, [cancelledEvent(run, stream)]);

    assert.equal(second.nextExpectedVersion, 3);
    const events = await ctx.store.readStream(stream);
    assert.deepEqual(events.map((e) => [e.type, e.streamVersion]), [["turn", 1], ["turn", 2], ["cancelled", 3]]);
    assert.ok(events[0].globalPosition < events[1].globalPosition && events[1].globalPosition < events[2].globalPosition);
    assert.deepEqual(events.map((e) => e.globalPosition), [...first.positions, ...second.positions]);
    assert.equal(new Set(events.map((e) => e.eventId)).size, 3);
    assert.deepEqual(events[2].metadata, { runId: run, executorId: stream, causationId: null, correlationId: run });
    assert.equal(events[0].prevHash, GENESIS_HASH);
    assert.equal(events[1].prevHash, events[0].hash);
    assert.equal(await ctx.store.streamVersion(stream), 3);
    assert.deepEqual(await ctx.store.readStream(stream, { fromVersion: 3 }).then((e) => e.map((x) => x.type)), ["cancelled"]);
  });

  test("an event named by its writer (folded ahead of its append) is stored under that id, covered by the chain", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    const named = randomUUID();
    await ctx.store.append(stream, 0, [{ ...turnEvent(run, stream, 1), eventId: named }, turnEvent(run, stream, 2)]);
    const events = await ctx.store.readStream(stream);
    assert.equal(events[0].eventId, named);
    assert.notEqual(events[1].eventId, named);
    assert.equal((await ctx.store.verify(stream)).ok, true);
  });

  test("round-trips unicode and a 1 MB payload byte for byte, with an intact chain", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    const unicode = "Ünïcødé ✓ 中文 العربية 🧵🐉 \u2028 \"quoted\" \\ back";
    const large = "x".repeat(1024 * 1024);
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1, unicode), turnEvent(run, stream, 2, large)]);
    const [a, b] = await ctx.store.readStream(stream);
    assert.equal(a.type === "turn" && (a.data.response.content[0] as { text: string }).text, unicode);
    assert.equal(b.type === "turn" && (b.data.response.content[0] as { text: string }).text.length, large.length);
    assert.deepEqual(await ctx.store.verify(stream), { ok: true, streamId: stream, count: 2, lastHash: b.hash });
  });

  test("a stale expected version throws ConcurrencyError and writes nothing", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1)]);
    const before = await ctx.store.readStream(stream);

    for (const stale of [0, 2, 7]) {
      await assert.rejects(ctx.store.append(stream, stale, [turnEvent(run, stream, 2)]), (e: unknown) => {
        assert.ok(e instanceof ConcurrencyError);
        assert.equal(e.actualVersion, 1);
        assert.equal(e.expectedVersion, stale);
        return true;
      });
    }
    assert.deepEqual(await ctx.store.readStream(stream), before);
    assert.equal(await ctx.store.streamVersion(stream), 1);
  });

  test("an invalid event anywhere in a batch throws ValidationError naming the path, writing nothing", async () => {
    const stream = uniqueId("exec");
    const run = uniqueId("run");
    await ctx.store.append(stream, 0, [turnEvent(run, stream, 1)]);
    const bad = turnEvent(run, stream, 3) as Extract<NewEvent, { type: "turn" }>;
    (bad.data as { turn: unknown }).turn = -1;

    await assert.rejects(ctx.store.append(stream, 1, [turnEvent(run, stream, 2), bad]), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.deepEqual(e.issues[0].path, ["events", 1, "data", "turn"]);
      assert.match(e.message, /events\.1\.data\.turn/);
      return true;
    });
    await assert.rejects(
      ctx.store.append(stream, 1, [{ type: "no_such_event", data: {}, metadata: { runId: run, executorId: stream } } as never]),
      (e: unknown) => e instanceof ValidationError && e.issues[0].path.join(".") === "events.0.type",
    );
    await assert.rejects(
      ctx.store.append(stream, 1, [{ ...cancelledEvent(run, stream), metadata: { runId: "", executorId: stream } }]),
      (e: unknown) => e instanceof ValidationError && e.issues[0].path.join(".") === "events.0.metadata.runId",
    );
    await assert.rejects(
      ctx.store.append(stream, 1, [{ ...cancelledEvent(run, stream), eventId: "event-1" }]),
      (e: unknown) => e instanceof ValidationError && e.issues[0].path.join(".") === "events.0.eventId",
    );
    await assert.rejects(
      ctx.store.append(stream, 1, [cancelledEvent(run, stream, "nul \u0000 inside")]),
      (e: unknown) => e instanceof ValidationError && e.issues[0].path.join(".") === "events.0.data.reason",
    );
    assert.equal((await ctx.store.readStream(stream)).length, 1);
    assert.equal(await ctx.store.streamVersion(stream), 1);
  });

  test("reads all events by global position in pages, and a run's events in order", async () => {
    const run = uniqueId("run");
    const [s1, s2] = [uniqueId("exec"), uniqueId("exec")];
    const start = (await ctx.store.append(s1, 0, [turnEvent(run, s1, 1)])).positions[0] - 1;
    await ctx.store.append(s2, 0, [turnEvent(run, s2, 1)]);
    await ctx.store.append(s1, 1, [turnEvent(run, s1, 2)]);

    const seen: string[] = [];
    let after = start;
    for (;;) {
      const page = await ctx.store.readAll({ after, limit: 2 });
      if (page.events.length === 0) break;
      seen.push(...page.events.filter((e) => e.metadata.runId === run).map((e) => `${e.streamId}@${e.streamVersion}`));
      after = page.lastPosition;
    }
    assert.deepEqual(seen, [`${s1}@1`, `${s2}@1`, `${s1}@2`]);
    const runEvents = await ctx.store.readRun(run);
    assert.deepEqual(runEvents.map((e) => `${e.streamId}@${e.streamVersion}`), seen);
  });

  test("the database refuses UPDATE and DELETE on events", async () => {
    const stream = uniqueId("exec");
    await ctx.store.append(stream, 0, [turnEvent(uniqueId("run"), stream, 1)]);
    const { sql } = await import("kysely");
    await assert.rejects(sql`UPDATE ariadne_events SET type = 'failed' WHERE stream_id = ${stream}`.execute(ctx.db.database.db), /append-only/);
    await assert.rejects(sql`DELETE FROM ariadne_events WHERE stream_id = ${stream}`.execute(ctx.db.database.db), /append-only/);
    assert.equal((await ctx.store.readStream(stream)).length, 1);
  });
});
