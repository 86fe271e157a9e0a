import { test } from "node:test";
import assert from "node:assert/strict";
import { type RawBuilder, sql } from "kysely";
import { GENESIS_HASH, type RecordedEvent, canonicalEvent, chainHash } from "../../events/index.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

forEachEngine("tamper detection", (ctx) => {
  test("a payload changed behind the store's back is named by verify", async () => {
    const { stream, events, neighbour } = await givenStreams(ctx);
    await tamper(ctx, sql`UPDATE ariadne_events SET data = jsonb_set(data, '{latencyMs}', '7')
                          WHERE stream_id = ${stream} AND stream_version = 3`);

    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[2]),
      reason: "content does not match its stored hash",
    });
    assert.equal((await ctx.store.verify(neighbour)).ok, true);
  });

  test("a payload that no longer parses is named by verify, not thrown", async () => {
    const { stream, events } = await givenStreams(ctx);
    await tamper(ctx, sql`UPDATE ariadne_events SET data = '{"turn": -1}'::jsonb
                          WHERE stream_id = ${stream} AND stream_version = 2`);

    try {
      const result = await ctx.store.verify(stream);
      assert.equal(result.ok, false);
      assert.deepEqual(!result.ok && result.firstBad, firstBad(events[1]));
      // Reading the stream refuses the corrupted row, naming where it is.
      await assert.rejects(ctx.store.readStream(stream), /position \d+ \(.* v2\) cannot be read/);
    } finally {
      // An unreadable row would stop every subscription that reads the shared PGlite log.
      await tamper(ctx, sql`UPDATE ariadne_events SET data = ${JSON.stringify(events[1].data)}::jsonb
                            WHERE stream_id = ${stream} AND stream_version = 2`);
    }
    assert.equal((await ctx.store.verify(stream)).ok, true);
  });

  test("a payload changed and re-hashed is named by the next event's broken link", async () => {
    const { stream, events, neighbour } = await givenStreams(ctx);
    // The forger recomputes event 3's hash over the changed payload, but cannot fix event 4's link.
    const { eventId, streamId, streamVersion, type, schemaVersion, data, metadata, recordedAt, prevHash } = events[2];
    const forged = { eventId, streamId, streamVersion, type, schemaVersion, data: { ...data, latencyMs: 7 }, metadata, recordedAt: recordedAt.toISOString() };
    const forgedHash = chainHash(prevHash, canonicalEvent(forged));
    await tamper(ctx, sql`UPDATE ariadne_events SET data = jsonb_set(data, '{latencyMs}', '7'), hash = decode(${forgedHash}, 'hex')
                          WHERE stream_id = ${stream} AND stream_version = 3`);

    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[3]),
      reason: "link to the previous event's hash is broken",
    });
    assert.equal((await ctx.store.verify(neighbour)).ok, true);
  });

  test("a rewritten link, or a rewritten stored hash, names that event", async () => {
    const { stream, events } = await givenStreams(ctx);
    await tamper(ctx, sql`UPDATE ariadne_events SET prev_hash = decode(${GENESIS_HASH}, 'hex') WHERE stream_id = ${stream} AND stream_version = 2`);
    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[1]),
      reason: "link to the previous event's hash is broken",
    });

    const other = await givenStreams(ctx);
    await tamper(ctx, sql`UPDATE ariadne_events SET hash = decode(${"f".repeat(64)}, 'hex') WHERE stream_id = ${other.stream} AND stream_version = 4`);
    assert.deepEqual(await ctx.store.verify(other.stream), {
      ok: false,
      streamId: other.stream,
      firstBad: firstBad(other.events[3]),
      reason: "content does not match its stored hash",
    });
  });

  test("an event removed from the middle names the event after the gap", async () => {
    const { stream, events } = await givenStreams(ctx);
    await tamper(ctx, sql`DELETE FROM ariadne_events WHERE stream_id = ${stream} AND stream_version = 2`);
    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[2]),
      reason: "version 3 where 2 was expected",
    });
  });

  test("an event moved to another run through its column is named: the run and executor columns are what is hashed", async () => {
    const { stream, events } = await givenStreams(ctx);
    // The stored metadata does not repeat the ids, nor the correlation id that is the run id (migration 0018).
    const [stored] = (await sql<{ metadata: Record<string, unknown> }>`SELECT metadata FROM ariadne_events WHERE stream_id = ${stream} AND stream_version = 4`.execute(ctx.db.database.db)).rows;
    assert.deepEqual(stored.metadata, { causationId: null });
    assert.deepEqual(events[3].metadata, { runId: events[3].metadata.runId, executorId: events[3].metadata.executorId, causationId: null, correlationId: events[3].metadata.runId });
    await tamper(ctx, sql`UPDATE ariadne_events SET run_id = 'another-run' WHERE stream_id = ${stream} AND stream_version = 4`);
    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[3]),
      reason: "content does not match its stored hash",
    });

    const other = await givenStreams(ctx);
    await tamper(ctx, sql`UPDATE ariadne_events SET executor_id = 'another-executor' WHERE stream_id = ${other.stream} AND stream_version = 2`);
    assert.deepEqual(await ctx.store.verify(other.stream), {
      ok: false,
      streamId: other.stream,
      firstBad: firstBad(other.events[1]),
      reason: "content does not match its stored hash",
    });
  });

  test("a row written before migration 0018 (ids in its stored metadata too) still verifies, and its columns must agree with that copy", async () => {
    const { stream, events } = await givenStreams(ctx);
    // What the append of 0016 stored: the whole metadata, ids included.
    await tamper(ctx, sql`UPDATE ariadne_events SET metadata = metadata || jsonb_build_object('runId', run_id, 'executorId', executor_id, 'correlationId', run_id)
                          WHERE stream_id = ${stream} AND stream_version = 4`);
    assert.equal((await ctx.store.verify(stream)).ok, true);
    assert.deepEqual((await ctx.store.readStream(stream))[3].metadata, events[3].metadata);

    await tamper(ctx, sql`UPDATE ariadne_events SET run_id = 'another-run' WHERE stream_id = ${stream} AND stream_version = 4`);
    assert.deepEqual(await ctx.store.verify(stream), {
      ok: false,
      streamId: stream,
      firstBad: firstBad(events[3]),
      reason: "run_id or executor_id column differs from the event's hashed metadata",
    });
  });

  test("a hash that is not 32 bytes is refused by the table", async () => {
    const { stream } = await givenStreams(ctx);
    await assert.rejects(
      tamper(ctx, sql`UPDATE ariadne_events SET hash = convert_to(${"f".repeat(64)}, 'UTF8') WHERE stream_id = ${stream} AND stream_version = 2`),
      /ariadne_events_hash_bytes/,
    );
  });

  test("a deleted tail is noticed against the stream head", async () => {
    const { stream, events } = await givenStreams(ctx);
    await tamper(ctx, sql`DELETE FROM ariadne_events WHERE stream_id = ${stream} AND stream_version = 5`);
    const result = await ctx.store.verify(stream);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.firstBad.streamVersion, 5);
    assert.equal(!result.ok && result.firstBad.eventId, events[3].eventId);
    assert.match(!result.ok ? result.reason : "", /version 5 but 4 events remain/);
  });
});

/** A five-event stream to tamper with, and a neighbour that must stay intact. Unique ids: PGlite is shared. */
async function givenStreams(ctx: EngineContext) {
  const run = uniqueId("run");
  const [stream, neighbour] = [uniqueId("exec"), uniqueId("exec")];
  for (const s of [stream, neighbour]) {
    await ctx.store.append(s, 0, [1, 2, 3].map((t) => turnEvent(run, s, t)));
    await ctx.store.append(s, 3, [4, 5].map((t) => turnEvent(run, s, t)));
  }
  const events = await ctx.store.readStream(stream);
  assert.equal((await ctx.store.verify(stream)).ok, true);
  return { stream, events, neighbour };
}

/** Runs one statement with the append-only trigger off, in a transaction so nothing else sees it off. */
async function tamper(ctx: EngineContext, statement: RawBuilder<unknown>) {
  await ctx.db.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE ariadne_events DISABLE TRIGGER ariadne_events_append_only`.execute(trx);
    const { numAffectedRows } = await statement.execute(trx);
    assert.equal(numAffectedRows, 1n);
    await sql`ALTER TABLE ariadne_events ENABLE TRIGGER ariadne_events_append_only`.execute(trx);
  });
}

const firstBad = (e: RecordedEvent) => ({ streamVersion: e.streamVersion, eventId: e.eventId, globalPosition: e.globalPosition });
