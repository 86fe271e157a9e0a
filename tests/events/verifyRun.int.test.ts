import { test } from "node:test";
import assert from "node:assert/strict";
import { type RawBuilder, sql } from "kysely";
import { NotFoundError } from "../../core/errors.ts";
import { GENESIS_HASH, type RecordedEvent, canonicalEvent, chainHash, runStreamId, sealRun, verifyRun, executorStreamId } from "../../events/index.ts";
import { offlineResearchModel, OFFLINE_QUESTION } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { childrenOf, ofType, runtimeWith } from "../actors/fixtures.ts";
import { type EngineContext, forEachEngine } from "../support/forEachEngine.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";

forEachEngine("run verification", (ctx) => {
  test("an intact run verifies whole: every stream, sealed, each consumed handoff pinned by its hash", async () => {
    const run = await givenRun(ctx, { seal: true });
    const result = await verifyRun(ctx.db.database, run.runId);

    assert.deepEqual(result.problems, []);
    assert.equal(result.ok, true);
    assert.equal(result.sealed?.rootHash, run.seal!.rootHash);
    assert.equal(result.rootHash, run.seal!.rootHash);
    assert.deepEqual(result.streams.map((s) => s.streamId).sort(), [...run.executorStreams, runStreamId(run.runId)].sort());
    assert.equal(result.events, run.events.length);
    // Each handoff_consumed in Main's stream names the Child's handoff event and carries its hash.
    const consumed = ofType(run.events, "handoff_consumed");
    assert.equal(consumed.length, 3);
    for (const c of consumed) {
      const committed = run.events.find((e) => e.eventId === c.data.handoffEventId);
      assert.equal(committed?.type, "handoff_committed");
      assert.equal(c.data.handoffHash, committed?.hash);
    }
    // Sealing again with nothing changed keeps the seal.
    assert.equal((await sealRun(ctx.store, run)).eventId, run.seal!.eventId);
  });

  test("a deleted tail with its head rewound passes the stream check but not the seal", async () => {
    const run = await givenRun(ctx, { seal: true });
    const child = executorStreamId(run.children[0]);
    const stream = await ctx.store.readStream(child);
    const last = stream.at(-1)!;
    await tamper(ctx, [
      sql`DELETE FROM ariadne_events WHERE stream_id = ${child} AND stream_version = ${last.streamVersion}`,
      sql`UPDATE ariadne_streams SET version = ${last.streamVersion - 1}, last_hash = decode(${stream.at(-2)!.hash}, 'hex') WHERE stream_id = ${child}`,
    ]);

    assert.equal((await ctx.store.verify(child)).ok, true, "the stream alone looks intact");
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false);
    assert.deepEqual(
      { ...result.problems[0], reason: undefined },
      { streamId: child, streamVersion: last.streamVersion, eventId: null, globalPosition: null, reason: undefined },
    );
    assert.match(result.problems[0].reason, new RegExp(`sealed at version ${last.streamVersion} .* only ${last.streamVersion - 1} events remain`));
    // Whoever kept the printed root finds it too.
    const held = await verifyRun(ctx.db.database, run.runId, { expectedRoot: run.seal!.rootHash });
    assert.ok(held.problems.some((p) => p.reason.includes(`not the expected ${run.seal!.rootHash}`)));
  });

  test("a Child stream deleted whole, with its head, is found through its parent's delegation", async () => {
    const run = await givenRun(ctx, { seal: false });
    const gone = run.children[1];
    await tamper(ctx, [
      sql`DELETE FROM ariadne_events WHERE stream_id = ${executorStreamId(gone)}`,
      sql`DELETE FROM ariadne_streams WHERE stream_id = ${executorStreamId(gone)}`,
    ]);

    const result = await verifyRun(ctx.db.database, run.runId);
    const intent = ofType(run.events, "tool_called").find((e) => e.data.childExecutorId === gone)!;
    assert.equal(result.ok, false);
    assert.deepEqual(result.problems[0], {
      streamId: executorStreamId(run.mainExecutorId),
      streamVersion: intent.streamVersion,
      eventId: intent.eventId,
      globalPosition: intent.globalPosition,
      reason: `delegate call ${intent.data.toolUseId} names Child ${gone}, whose stream ${executorStreamId(gone)} is missing`,
    });
    assert.ok(result.problems.some((p) => p.reason.startsWith(`consumed the handoff of Child ${gone}`)));
  });

  test("a Child stream rewritten with a valid chain is found by the hash its parent consumed", async () => {
    const run = await givenRun(ctx, { seal: false });
    const child = executorStreamId(run.children[2]);
    const handoff = (await ctx.store.readStream(child)).find((e) => e.type === "handoff_committed")!;
    await rewriteFrom(ctx, child, handoff.streamVersion, (data) => ({ ...(data as object), repairs: 1 }));

    assert.equal((await ctx.store.verify(child)).ok, true, "the forged chain is self-consistent");
    const result = await verifyRun(ctx.db.database, run.runId);
    const consumed = ofType(run.events, "handoff_consumed").find((e) => e.data.handoffEventId === handoff.eventId)!;
    assert.equal(result.ok, false);
    assert.equal(result.problems[0].eventId, consumed.eventId);
    assert.match(result.problems[0].reason, /rewritten after the handoff was consumed/);
  });

  test("an event appended after the seal is named", async () => {
    const run = await givenRun(ctx, { seal: true });
    const main = executorStreamId(run.mainExecutorId);
    const version = await ctx.store.streamVersion(main);
    const { events } = await ctx.store.append(main, version, [
      { type: "cancelled", data: { reason: "late", by: "operator" }, metadata: { runId: run.runId, executorId: run.mainExecutorId } },
    ]);

    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false);
    assert.equal(result.problems[0].eventId, events[0].eventId);
    assert.match(result.problems[0].reason, new RegExp(`appended after the run was sealed at version ${version}`));
  });

  test("an unknown run is not found", async () => {
    await assert.rejects(verifyRun(ctx.db.database, "no-such-run"), NotFoundError);
  });
});

/** The offline research run (Main and three Children) on the suite's store; sealed when asked. */
async function givenRun(ctx: EngineContext, options: { seal: boolean }) {
  const runtime = runtimeWith(ctx.store, { main: offlineResearchModel(), child: offlineResearchModel() }, await scenarioHosting(ctx.db.database));
  const handle = await runtime.startRun(OFFLINE_QUESTION);
  assert.equal((await handle.result).kind, "answer");
  const run = { runId: handle.runId, mainExecutorId: handle.mainExecutorId };
  const seal = options.seal ? await sealRun(ctx.store, run) : null;
  const events = await ctx.store.readRun(run.runId);
  const children = childrenOf(events, run.mainExecutorId);
  assert.equal(children.length, 3);
  const executorStreams = [run.mainExecutorId, ...children].map(executorStreamId);
  return { ...run, seal, events, children, executorStreams };
}

/** Runs statements with both tables' guards off, in a transaction so nothing else sees them off. */
async function tamper(ctx: EngineContext, statements: RawBuilder<unknown>[]) {
  await ctx.db.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE ariadne_events DISABLE TRIGGER ariadne_events_append_only`.execute(trx);
    await sql`ALTER TABLE ariadne_streams DISABLE TRIGGER ariadne_streams_forward_only`.execute(trx);
    for (const statement of statements) await statement.execute(trx);
    await sql`ALTER TABLE ariadne_streams ENABLE TRIGGER ariadne_streams_forward_only`.execute(trx);
    await sql`ALTER TABLE ariadne_events ENABLE TRIGGER ariadne_events_append_only`.execute(trx);
  });
}

/** Changes one event's payload and re-hashes the chain from there, head included: a forger with no key to beat. */
async function rewriteFrom(ctx: EngineContext, streamId: string, version: number, change: (data: unknown) => unknown) {
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

function hashed(e: RecordedEvent, data: unknown) {
  const { eventId, streamId, streamVersion, type, schemaVersion, metadata, recordedAt } = e;
  return { eventId, streamId, streamVersion, type, schemaVersion, data, metadata, recordedAt: recordedAt.toISOString() };
}
