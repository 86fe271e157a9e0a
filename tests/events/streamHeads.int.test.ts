import { test } from "node:test";
import assert from "node:assert/strict";
import { type Transaction, sql } from "kysely";
import type { Schema } from "../../db/index.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

forEachEngine("stream heads are guarded like the events", (ctx) => {
  test("a head cannot be rewound, even to match a deleted tail", async () => {
    // Given a five-event stream whose last two events were deleted behind the store's back
    const { stream, events } = await givenStream(ctx);
    const error = await attempt(ctx, async (trx) => {
      await sql`ALTER TABLE ariadne_events DISABLE TRIGGER ariadne_events_append_only`.execute(trx);
      await sql`DELETE FROM ariadne_events WHERE stream_id = ${stream} AND stream_version > 3`.execute(trx);
      // When the head is rewound to match what is left
      await sql`UPDATE ariadne_streams SET version = 3, last_hash = decode(${events[2].hash}, 'hex') WHERE stream_id = ${stream}`.execute(trx);
    });
    // Then the database refuses, and the stream is as it was
    assert.match(String(error), /may not move from version 5 to 3/);
    assert.equal((await ctx.store.verify(stream)).ok, true);
    assert.equal(await ctx.store.streamVersion(stream), 5);
  });

  test("a head cannot be given another hash, moved past its events, deleted or truncated", async () => {
    const { stream, events, run } = await givenStream(ctx);
    const refusals = [
      sql`UPDATE ariadne_streams SET last_hash = decode(${"f".repeat(64)}, 'hex') WHERE stream_id = ${stream}`,
      sql`UPDATE ariadne_streams SET version = 6 WHERE stream_id = ${stream}`,
      sql`UPDATE ariadne_streams SET stream_id = 'elsewhere' WHERE stream_id = ${stream}`,
      sql`DELETE FROM ariadne_streams WHERE stream_id = ${stream}`,
      sql`INSERT INTO ariadne_streams (run_id, stream_id, version, last_hash) VALUES (${run}, ${uniqueId("forged")}, 1, decode(${events[0].hash}, 'hex'))`,
      sql`TRUNCATE ariadne_streams`,
    ];
    for (const statement of refusals) {
      const error = await attempt(ctx, (trx) => statement.execute(trx));
      assert.match(String(error), /ariadne_streams/, `not refused: ${statement.compile(ctx.db.database.db).sql}`);
      assert.equal((error as { code?: string }).code, "AR403");
    }
    assert.equal((await ctx.store.verify(stream)).ok, true);
  });

  test("appends still move the head forward, for new and existing streams", async () => {
    const { stream, run } = await givenStream(ctx);
    await ctx.store.append(stream, 5, [turnEvent(run, stream, 6)]);
    const fresh = uniqueId("exec");
    await ctx.store.append(fresh, 0, [turnEvent(run, fresh, 1), turnEvent(run, fresh, 2)]);
    assert.equal(await ctx.store.streamVersion(stream), 6);
    assert.equal(await ctx.store.streamVersion(fresh), 2);
    assert.equal((await ctx.store.verify(stream)).ok, true);
    assert.equal((await ctx.store.verify(fresh)).ok, true);
  });

  test("a stream belongs to one run: an append naming another run is refused and writes nothing", async () => {
    const { stream } = await givenStream(ctx);
    await assert.rejects(ctx.store.append(stream, 5, [turnEvent(uniqueId("run"), stream, 6)]), /belongs to another run/);
    assert.equal(await ctx.store.streamVersion(stream), 5);
    assert.equal((await ctx.store.readStream(stream)).length, 5);
  });
});

async function givenStream(ctx: EngineContext) {
  const run = uniqueId("run");
  const stream = uniqueId("exec");
  await ctx.store.append(stream, 0, [1, 2, 3].map((t) => turnEvent(run, stream, t)));
  await ctx.store.append(stream, 3, [4, 5].map((t) => turnEvent(run, stream, t)));
  return { stream, run, events: await ctx.store.readStream(stream) };
}

const ROLLBACK = new Error("rolled back: the test leaves nothing behind");

/** Runs statements in a transaction that is always rolled back; returns what refused them, or null. */
async function attempt(ctx: EngineContext, body: (trx: Transaction<Schema>) => Promise<unknown>): Promise<unknown> {
  try {
    await ctx.db.database.db.transaction().execute(async (trx) => {
      await body(trx);
      throw ROLLBACK;
    });
  } catch (e) {
    return e === ROLLBACK ? null : e;
  }
  return null;
}
