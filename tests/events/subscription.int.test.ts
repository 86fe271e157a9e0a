import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { randomId, systemClock } from "../../core/clock.ts";
import { TransactionOrderError } from "../../core/errors.ts";
import type { Database } from "../../db/index.ts";
import { appendToStream } from "../../events/appendToStream.ts";
import { type NewEvent, type RecordedEvent, readFromCheckpoint } from "../../events/index.ts";
import type { Subscription } from "../../events/subscribe.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

const POLL_MS = 25;
const TIMEOUT = { timeout: 30_000 };

forEachEngine("subscriptions", (ctx) => {
  test("a subscription sees every event exactly once, in order, from catch-up into live", TIMEOUT, async () => {
    const run = uniqueId("run");
    const streams = [uniqueId("exec"), uniqueId("exec"), uniqueId("exec")];
    // Given events already in the log before the subscription starts
    await appendRounds(ctx, run, streams, 3);
    const seen = collector(run);
    const sub = await ctx.store.subscribe({ subscriptionId: uniqueId("sub"), handle: seen.handle, pollMs: POLL_MS, batchSize: 4 });
    try {
      // When more are appended concurrently while it runs
      await appendRounds(ctx, run, streams, 3, 3);
      await sub.caughtUp();

      // Then it has every event of the run once, each stream in version order
      assertExactlyOnceInStreamOrder(seen.events, await ctx.store.readRun(run));
    } finally {
      await sub.stop();
    }
  });

  test("leased subscriptions sharing an id: one handles while the other follows; when it stops, the other takes over", TIMEOUT, async () => {
    const run = uniqueId("run");
    const streams = [uniqueId("exec"), uniqueId("exec")];
    const subscriptionId = uniqueId("sub");
    await appendRounds(ctx, run, streams, 3);
    // Given two subscriptions with one id and a lease, started at once
    const [a, b] = [collector(run), collector(run)];
    const taken: string[] = [];
    const lease = (name: string) => ({ ttlMs: 60_000, onTaken: () => taken.push(name) });
    const [subA, subB] = await Promise.all([
      ctx.store.subscribe({ subscriptionId, handle: a.handle, pollMs: POLL_MS, batchSize: 2, lease: lease("a") }),
      ctx.store.subscribe({ subscriptionId, handle: b.handle, pollMs: POLL_MS, batchSize: 2, lease: lease("b") }),
    ]);
    let bStopped = false;
    try {
      // When both catch up (the follower resolves as the holder's stored checkpoint moves)
      await Promise.all([subA.caughtUp(), subB.caughtUp()]);
      // Then each event was handled once, by the one that holds the lease
      assert.equal(taken.length, 1);
      const [holder, follower] = taken[0] === "a" ? [subA, subB] : [subB, subA];
      assertExactlyOnceInStreamOrder([...a.events, ...b.events], await ctx.store.readRun(run));
      assert.deepEqual((taken[0] === "a" ? b : a).events, []);

      // When the holder stops (it gives the lease up) and more events arrive
      await holder.stop();
      if (holder === subB) bStopped = true;
      await appendRounds(ctx, run, streams, 2, 3);
      await follower.caughtUp();
      // Then the follower took over from the stored checkpoint: still every event once, the holder's first
      assert.equal(taken.length, 2);
      const [first, then] = taken[0] === "a" ? [a, b] : [b, a];
      assertExactlyOnceInStreamOrder([...first.events, ...then.events], await ctx.store.readRun(run));
    } finally {
      await subA.stop();
      if (!bStopped) await subB.stop();
    }
  });

  test("a leased subscription takes over from a holder whose lease ran out (a process that died)", TIMEOUT, async () => {
    const run = uniqueId("run");
    const streams = [uniqueId("exec")];
    const subscriptionId = uniqueId("sub");
    await appendRounds(ctx, run, streams, 2);
    // Given a lease held by an owner that never renews it, 200 ms long
    await sql`INSERT INTO ariadne_checkpoints (subscription_id, tx_id, position, lease_owner, lease_expires_at)
              VALUES (${subscriptionId}, '0', '0', 'dead-owner', now() + interval '200 milliseconds')`.execute(ctx.db.database.db);
    const seen = collector(run);
    const sub = await ctx.store.subscribe({ subscriptionId, handle: seen.handle, pollMs: POLL_MS, lease: { ttlMs: 60_000 } });
    try {
      // Then once it runs out, this subscription handles the log
      await sub.caughtUp();
      assertExactlyOnceInStreamOrder(seen.events, await ctx.store.readRun(run));
    } finally {
      await sub.stop();
    }
  });

  test("a stopped subscription resumes from its stored checkpoint with no duplicate and no gap", TIMEOUT, async () => {
    const run = uniqueId("run");
    const streams = [uniqueId("exec"), uniqueId("exec")];
    const subscriptionId = uniqueId("sub");
    await appendRounds(ctx, run, streams, 5);

    // Given a subscription stopped from inside its handler, mid-batch, after 4 events of the run
    const first = collector(run);
    let sub: Subscription | undefined;
    let stopping: Promise<void> | undefined;
    sub = await ctx.store.subscribe({
      subscriptionId,
      batchSize: 3,
      pollMs: POLL_MS,
      handle(e) {
        first.handle(e);
        if (first.events.length === 4) stopping = sub!.stop();
      },
    });
    await waitFor(() => stopping !== undefined);
    await stopping;
    assert.equal(first.events.length, 4);

    // When more events arrive while it is stopped, and it is started again under the same id
    await appendRounds(ctx, run, streams, 3, 5);
    const second = collector(run);
    const resumed = await ctx.store.subscribe({ subscriptionId, handle: second.handle, batchSize: 3, pollMs: POLL_MS });
    try {
      await resumed.caughtUp();
      // What it has handled is what it stored, for the next resume.
      assert.deepEqual(await storedCheckpoint(ctx, subscriptionId), resumed.position());
    } finally {
      await resumed.stop();
    }

    // Then the two runs together saw every event exactly once, in stream order
    assert.ok(second.events.length > 0);
    assertExactlyOnceInStreamOrder([...first.events, ...second.events], await ctx.store.readRun(run));
  });

  test("events of a rolled-back transaction are never delivered", TIMEOUT, async () => {
    const run = uniqueId("run");
    const [rolledBack, committed] = [uniqueId("exec"), uniqueId("exec")];
    const seen = collector(run);
    const sub = await ctx.store.subscribe({ subscriptionId: uniqueId("sub"), handle: seen.handle, pollMs: POLL_MS });
    try {
      // Given a transaction that appends three events and then rolls back
      const tx = await openTransaction(ctx.db.database);
      try {
        await tx.append(rolledBack, 0, events(run, rolledBack, 1, 3));
      } finally {
        await tx.rollback();
      }
      // When another stream commits afterwards
      await ctx.store.append(committed, 0, events(run, committed, 1, 2));
      await sub.caughtUp();

      // Then only the committed events are delivered, and the rolled-back stream does not exist
      assert.deepEqual(seen.events.map((e) => `${e.streamId}@${e.streamVersion}`), [`${committed}@1`, `${committed}@2`]);
      assert.equal(await ctx.store.streamVersion(rolledBack), 0);
    } finally {
      await sub.stop();
    }
  });

  // Two transactions open at once need two connections. PostgreSQL can commit them out of
  // position order, which the watermark must survive; PGlite has one connection and
  // serialises transactions, which is what makes the same guarantee hold there.
  if (ctx.engine === "postgres") {

    for (const { xids, positions } of [
      { xids: "the open transaction is older", positions: "it holds the lower position" },
      { xids: "the open transaction is older", positions: "it holds the higher position" },
      { xids: "the open transaction is younger", positions: "it holds the lower position" },
      { xids: "the open transaction is younger", positions: "it holds the higher position" },
    ]) {
      test(`commits out of order (${xids}, ${positions}): nothing skipped, nothing twice`, TIMEOUT, async () => {
        const run = uniqueId("run");
        const [streamA, streamB] = [uniqueId("execA"), uniqueId("execB")];
        const live = collector(run);
        const resumed = collector(run);
        const liveSub = await ctx.store.subscribe({ subscriptionId: uniqueId("live"), handle: live.handle, pollMs: POLL_MS });
        const resumedId = uniqueId("resumed");
        let resumedSub = await ctx.store.subscribe({ subscriptionId: resumedId, handle: resumed.handle, pollMs: POLL_MS });
        const open: OpenTransaction[] = [];
        try {
          // Given transaction A (kept open) and B, whose ids and positions are ordered as the title says
          const aOlder = xids.includes("older");
          open.push(await openTransaction(ctx.db.database), await openTransaction(ctx.db.database));
          const [first, second] = open;
          const [a, b] = aOlder ? [first, second] : [second, first];
          assert.equal(a.xid < b.xid, aOlder);
          const aLower = positions.includes("lower");
          for (const [tx, stream] of aLower ? ([[a, streamA], [b, streamB]] as const) : ([[b, streamB], [a, streamA]] as const)) {
            await tx.append(stream, 0, events(run, stream, 1, 3));
          }

          // When B commits while A is still open
          await b.commit();
          const bEvents = await ctx.store.readStream(streamB);
          if (aOlder) {
            // B's events sit behind A's open transaction: delivering them now would move the
            // checkpoint past A's events, which A's commit later makes visible behind it.
            const pending = flag(liveSub.caughtUp());
            await sleep(POLL_MS * 6);
            assert.equal(pending.done, false, "caughtUp must wait for the older open transaction");
            assert.deepEqual(live.events, []);
            assert.deepEqual(resumed.events, []);
            assert.deepEqual((await readFromCheckpoint(ctx.db.database, liveSub.position())).events.filter(ofRun(run)), []);
            if (aLower) {
              // A checkpoint by position alone would already be past A's (still invisible) events.
              const byPosition = (await ctx.store.readAll({ limit: 100_000 })).events.filter(ofRun(run));
              assert.deepEqual(byPosition.map((e) => e.streamId), [streamB, streamB, streamB]);
            }
          } else {
            // B is older than every open transaction: it is delivered now, and A's checkpoint,
            // (A's xid, A's position), still sorts after it whatever A's position is.
            await liveSub.caughtUp();
            await resumedSub.caughtUp();
            assert.deepEqual(ids(live.events), ids(bEvents));
            assert.deepEqual(ids(resumed.events), ids(bEvents));
          }
          // A second subscription stops here, before A commits, and resumes afterwards.
          await resumedSub.stop();

          // Then once A commits, every event is delivered exactly once, in stream order
          await a.commit();
          await liveSub.caughtUp();
          resumedSub = await ctx.store.subscribe({ subscriptionId: resumedId, handle: resumed.handle, pollMs: POLL_MS });
          await resumedSub.caughtUp();
          const all = await ctx.store.readRun(run);
          assert.equal(all.length, 6);
          assertExactlyOnceInStreamOrder(live.events, all);
          assertExactlyOnceInStreamOrder(resumed.events, all);
          // Delivery follows transaction order: the older transaction's events come first.
          const olderStream = aOlder ? streamA : streamB;
          assert.deepEqual(live.events.map((e) => e.streamId), [olderStream, olderStream, olderStream, ...Array(3).fill(olderStream === streamA ? streamB : streamA)]);
        } finally {
          // An open transaction would hold back every subscription in the cluster, and the pool's close.
          for (const tx of open) await tx.rollback();
          await liveSub.stop();
          await resumedSub.stop();
        }
      });
    }

    test("a transaction that took its id before appending cannot slip behind a younger writer of the stream", TIMEOUT, async () => {
      const run = uniqueId("run");
      const stream = uniqueId("exec");
      // Given transaction A that already has its transaction id (as after another write)
      const a = await openTransaction(ctx.db.database);
      try {
        // When a younger transaction appends version 1 and commits, and A then appends version 2
        await ctx.store.append(stream, 0, events(run, stream, 1, 1));
        // Then A is refused as a serialization failure, to be retried: otherwise its version 2
        // would sort before version 1 in (transaction, position) order.
        await assert.rejects(a.append(stream, 1, events(run, stream, 2, 1)), (e: unknown) => {
          assert.ok(e instanceof TransactionOrderError);
          assert.equal((e.cause as { code?: string }).code, "40001");
          return true;
        });
      } finally {
        await a.rollback();
      }
      // And a retry in a fresh transaction succeeds
      const retry = await openTransaction(ctx.db.database);
      try {
        await retry.append(stream, 1, events(run, stream, 2, 1));
        await retry.commit();
      } finally {
        await retry.rollback();
      }
      const seen = collector(run);
      const sub = await ctx.store.subscribe({ subscriptionId: uniqueId("sub"), handle: seen.handle, pollMs: POLL_MS });
      await sub.caughtUp();
      await sub.stop();
      assertExactlyOnceInStreamOrder(seen.events, await ctx.store.readRun(run));
    });
  } else {
    test("PGlite serialises transactions: an append waits for an open one, so commits cannot be reordered", TIMEOUT, async () => {
      const run = uniqueId("run");
      const streamB = uniqueId("execB");
      let bDone = false;
      let b: Promise<unknown> | undefined;
      await ctx.db.database.db.transaction().execute(async (trx) => {
        // Given transaction A has appended and is still open
        await sql`SELECT pg_current_xact_id()`.execute(trx);
        await sql`INSERT INTO ariadne_checkpoints (subscription_id, tx_id, position) VALUES (${uniqueId("hold")}, '0', '0')`.execute(trx);
        // When B appends meanwhile
        b = ctx.store.append(streamB, 0, [turnEvent(run, streamB, 1)]).then(() => (bDone = true));
        await sleep(150);
        // Then B has not committed while A is open
        assert.equal(bDone, false);
      });
      await b;
      const events = await ctx.store.readRun(run);
      assert.deepEqual(events.map((e) => e.streamId), [streamB]);
    });
  }

  test("caughtUp rejects once the handler has failed, and the failure goes to onError", TIMEOUT, async () => {
    const run = uniqueId("run");
    const stream = uniqueId("exec");
    const errors: unknown[] = [];
    const sub = await ctx.store.subscribe({
      subscriptionId: uniqueId("sub"),
      pollMs: POLL_MS,
      handle(e) {
        if (e.metadata.runId === run) throw new Error("projection broke");
      },
      onError: (e) => errors.push(e),
    });
    await ctx.store.append(stream, 0, events(run, stream, 1, 1));
    await assert.rejects(sub.caughtUp(), /projection broke/);
    await sub.stop();
    assert.equal(errors.length, 1);
  });
});

interface OpenTransaction {
  xid: bigint;
  append(streamId: string, expectedVersion: number, events: readonly NewEvent[]): Promise<unknown>;
  commit(): Promise<void>;
  /** Rolls back unless already committed or rolled back. */
  rollback(): Promise<void>;
}

/**
 * A transaction held open across steps, with its transaction id already taken (so
 * the test fixes the xid order), appending through the store's own appendToStream.
 */
async function openTransaction(database: Database): Promise<OpenTransaction> {
  const trx = await database.db.startTransaction().execute();
  const { rows } = await sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`.execute(trx);
  const deps = { database: { ...database, db: trx }, clock: systemClock, newId: randomId };
  return {
    xid: BigInt(rows[0].xid),
    append: (streamId, expectedVersion, evs) => appendToStream(deps, streamId, expectedVersion, evs),
    commit: () => trx.commit().execute(),
    // Safe to call at any time: a finished transaction is left alone.
    async rollback() {
      if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
    },
  };
}

/** Appends `rounds` rounds of 1-3 events to every stream, the streams concurrently. */
async function appendRounds(ctx: EngineContext, run: string, streams: string[], rounds: number, fromRound = 0) {
  await Promise.all(
    streams.map(async (stream) => {
      for (let r = fromRound; r < fromRound + rounds; r++) {
        const version = await ctx.store.streamVersion(stream);
        await ctx.store.append(stream, version, events(run, stream, version + 1, 1 + (r % 3)));
      }
    }),
  );
}

function events(run: string, stream: string, fromTurn: number, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => turnEvent(run, stream, fromTurn + i));
}

function collector(run: string) {
  const events: RecordedEvent[] = [];
  return { events, handle: (e: RecordedEvent) => void (e.metadata.runId === run && events.push(e)) };
}

const ofRun = (run: string) => (e: RecordedEvent) => e.metadata.runId === run;
const ids = (events: RecordedEvent[]) => events.map((e) => e.eventId);

function assertExactlyOnceInStreamOrder(delivered: RecordedEvent[], stored: RecordedEvent[]) {
  assert.equal(new Set(ids(delivered)).size, delivered.length, "an event was delivered twice");
  assert.deepEqual(new Set(ids(delivered)), new Set(ids(stored)), "delivered events differ from the stored ones");
  const last = new Map<string, number>();
  for (const e of delivered) {
    assert.equal(e.streamVersion, (last.get(e.streamId) ?? 0) + 1, `${e.streamId} v${e.streamVersion} out of order`);
    last.set(e.streamId, e.streamVersion);
  }
}

/** The checkpoint stored for a subscription, as a fresh subscribe() would load it. */
async function storedCheckpoint(ctx: EngineContext, subscriptionId: string) {
  const row = await ctx.db.database.db
    .selectFrom("ariadne_checkpoints")
    .select(["tx_id", "position"])
    .where("subscription_id", "=", subscriptionId)
    .executeTakeFirstOrThrow();
  return { txId: row.tx_id, position: Number(row.position) };
}

function flag(promise: Promise<unknown>) {
  const state = { done: false };
  promise.then(() => (state.done = true), () => (state.done = true));
  return state;
}

async function waitFor(condition: () => boolean, ms = 10_000) {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(5);
  }
}
