import { type RawBuilder, sql } from "kysely";
import { GENESIS_HASH, type RecordedEvent, canonicalEvent, chainHash } from "../../events/index.ts";
import type { EngineContext } from "../support/forEachEngine.ts";

/**
 * What a superuser can do to the log: statements run with both tables' guards
 * off (ALTER TABLE … DISABLE TRIGGER), in a transaction so nothing else sees them off.
 */
export async function tamper(ctx: EngineContext, statements: RawBuilder<unknown>[]) {
  await ctx.db.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE ariadne_events DISABLE TRIGGER ariadne_events_append_only`.execute(trx);
    await sql`ALTER TABLE ariadne_streams DISABLE TRIGGER ariadne_streams_forward_only`.execute(trx);
    for (const statement of statements) await statement.execute(trx);
    await sql`ALTER TABLE ariadne_streams ENABLE TRIGGER ariadne_streams_forward_only`.execute(trx);
    await sql`ALTER TABLE ariadne_events ENABLE TRIGGER ariadne_events_append_only`.execute(trx);
  });
}

/** Changes one event's payload and re-hashes the chain from there, head included: the chain is self-consistent again. */
export async function rewriteFrom(ctx: EngineContext, streamId: string, version: number, change: (data: unknown) => unknown) {
  const events = await ctx.store.readStream(streamId);
  let prev = events[version - 2]?.hash ?? GENESIS_HASH;
  const statements: RawBuilder<unknown>[] = [];
  for (const e of events.slice(version - 1)) {
    const data = e.streamVersion === version ? change(e.data) : e.data;
    const hash = chainHash(prev, canonicalEvent(hashed(e, data)));
    statements.push(sql`UPDATE ariadne_events SET data = ${JSON.stringify(data)}::jsonb, prev_hash = decode(${prev}, 'hex'), hash = decode(${hash}, 'hex') WHERE event_id = ${e.eventId}`);
    prev = hash;
  }
  statements.push(sql`UPDATE ariadne_streams SET last_hash = decode(${prev}, 'hex') WHERE stream_id = ${streamId}`);
  await tamper(ctx, statements);
}

/** Deletes a stream's last event and rewinds its head (or drops the head when nothing is left). */
export async function deleteLast(ctx: EngineContext, streamId: string) {
  const events = await ctx.store.readStream(streamId);
  const last = events.at(-1)!;
  const before = events.at(-2);
  await tamper(ctx, [
    sql`DELETE FROM ariadne_events WHERE event_id = ${last.eventId}`,
    before
      ? sql`UPDATE ariadne_streams SET version = ${before.streamVersion}, last_hash = decode(${before.hash}, 'hex') WHERE stream_id = ${streamId}`
      : sql`DELETE FROM ariadne_streams WHERE stream_id = ${streamId}`,
  ]);
}

function hashed(e: RecordedEvent, data: unknown) {
  const { eventId, streamId, streamVersion, type, schemaVersion, metadata, recordedAt } = e;
  return { eventId, streamId, streamVersion, type, schemaVersion, data, metadata, recordedAt: recordedAt.toISOString() };
}

/** Removes whole events from a stream, renumbers the rest and re-chains it from the first removed, head included: a self-consistent stream without them. */
export async function removeEvents(ctx: EngineContext, streamId: string, remove: (e: RecordedEvent) => boolean) {
  const events = await ctx.store.readStream(streamId);
  const first = events.findIndex(remove);
  if (first < 0) throw new Error(`nothing to remove from ${streamId}`);
  let prev = events[first - 1]?.hash ?? GENESIS_HASH;
  let version = first;
  const statements: RawBuilder<unknown>[] = [];
  for (const e of events.slice(first)) {
    if (remove(e)) {
      statements.push(sql`DELETE FROM ariadne_events WHERE event_id = ${e.eventId}`);
      continue;
    }
    version++;
    const hash = chainHash(prev, canonicalEvent({ ...hashed(e, e.data), streamVersion: version }));
    statements.push(sql`UPDATE ariadne_events SET stream_version = ${version}, prev_hash = decode(${prev}, 'hex'), hash = decode(${hash}, 'hex') WHERE event_id = ${e.eventId}`);
    prev = hash;
  }
  statements.push(sql`UPDATE ariadne_streams SET version = ${version}, last_hash = decode(${prev}, 'hex') WHERE stream_id = ${streamId}`);
  await tamper(ctx, statements);
}
