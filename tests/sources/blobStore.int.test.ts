import { test } from "node:test";
import assert from "node:assert/strict";
import { type RawBuilder, sql } from "kysely";
import { sha256Hex, verifyBlobs } from "../../sources/index.ts";
import { createDatabaseBlobStore, storedBlobs } from "../../db/sourceBlobs.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";

const bytesOf = (text: string) => new TextEncoder().encode(text);

forEachEngine("source blob store", (ctx) => {
  const blobs = () => createDatabaseBlobStore(ctx.db.database.db);

  test("put then get gives the same bytes back under their sha256", async () => {
    const bytes = bytesOf(`<html>${uniqueId("page")}</html>`);
    const sha256 = await blobs().put(bytes);
    assert.equal(sha256, sha256Hex(bytes));
    assert.deepEqual(await blobs().get(sha256), bytes);
    assert.equal(await blobs().get(sha256Hex(bytesOf(uniqueId("never stored")))), null);
    assert.equal(await blobs().get("not a hash"), null);
  });

  test("binary bytes (every byte value) survive the round trip", async () => {
    const bytes = new Uint8Array(256 * 4).map((_, i) => i % 256);
    bytes[0] = Math.floor(Math.random() * 256);
    const sha256 = await blobs().put(bytes);
    assert.deepEqual(await blobs().get(sha256), bytes);
  });

  test("the same bytes are stored once", async () => {
    const bytes = bytesOf(uniqueId("twice"));
    const [a, b] = await Promise.all([blobs().put(bytes), blobs().put(bytes.slice())]);
    assert.equal(a, b);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_source_blobs WHERE sha256 = ${a}`.execute(ctx.db.database.db);
    assert.equal(rows[0].n, 1);
  });

  test("a stored blob cannot be rewritten or deleted", async () => {
    const sha256 = await blobs().put(bytesOf(uniqueId("kept")));
    await assert.rejects(sql`UPDATE ariadne_source_blobs SET bytes = '\\x00'::bytea, size = 1 WHERE sha256 = ${sha256}`.execute(ctx.db.database.db), /write-once: UPDATE refused/);
    await assert.rejects(sql`DELETE FROM ariadne_source_blobs WHERE sha256 = ${sha256}`.execute(ctx.db.database.db), /write-once: DELETE refused/);
    await assert.rejects(sql`TRUNCATE ariadne_source_blobs`.execute(ctx.db.database.db), /write-once: TRUNCATE refused/);
    assert.deepEqual((await verifyBlobs(storedBlobs(ctx.db.database.db), [sha256])).changed, []);
  });

  test("a blob changed behind the store's back (trigger off) is named by verifyBlobs", async () => {
    const good = await blobs().put(bytesOf(uniqueId("good")));
    const bad = await blobs().put(bytesOf(uniqueId("to be changed")));
    await tamper(ctx, sql`UPDATE ariadne_source_blobs SET bytes = convert_to('forged', 'UTF8'), size = 6 WHERE sha256 = ${bad}`);
    const absent = sha256Hex(uniqueId("absent"));
    const check = await verifyBlobs(storedBlobs(ctx.db.database.db), [good, bad, absent]);
    assert.deepEqual(check, { checked: 2, missing: [absent], changed: [bad] });
    // With no hashes named, every stored blob is re-hashed.
    assert.ok((await verifyBlobs(storedBlobs(ctx.db.database.db))).changed.includes(bad));
  });
});

async function tamper(ctx: EngineContext, statement: RawBuilder<unknown>) {
  await ctx.db.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
    const { numAffectedRows } = await statement.execute(trx);
    assert.equal(numAffectedRows, 1n);
    await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
  });
}
