import { Buffer } from "node:buffer";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Migrator, sql } from "kysely";
import { type Database, migrateToLatest, openDatabase } from "../../db/index.ts";
import { createEventStore } from "../../events/index.ts";
import { migrationProvider, migrations } from "../../migrations/index.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { ADMIN_URL, ENGINES, adminQuery as admin } from "../support/testDatabase.ts";
import { turnEvent } from "./fixtures.ts";

const ALL = Object.keys(migrations);

forEachEngine("migrations", (ctx) => {
  test("migrateToLatest is idempotent: run again, it applies nothing and the store still works", async () => {
    // Given a database the suite has already migrated
    assert.deepEqual(await appliedMigrations(ctx.db.database), ALL);

    // When it is migrated twice more
    assert.deepEqual(await migrateToLatest(ctx.db.database), []);
    assert.deepEqual(await migrateToLatest(ctx.db.database), []);

    // Then nothing changed and appends still work
    assert.deepEqual(await appliedMigrations(ctx.db.database), ALL);
    const stream = uniqueId("exec");
    await ctx.store.append(stream, 0, [turnEvent(uniqueId("run"), stream, 1)]);
    assert.equal((await ctx.store.verify(stream)).ok, true);
  });
});

// Only where PostgreSQL is among the test engines (ARIADNE_TEST_ENGINES); always so in CI.
if (ENGINES.includes("postgres")) describe("migrations on a fresh PostgreSQL database", () => {
  const name = `ariadne_test_${process.pid}_fresh_${Math.random().toString(36).slice(2, 8)}`;
  const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const opened: Database[] = [];
  before(() => admin(`CREATE DATABASE ${name}`));
  after(async () => {
    await Promise.all(opened.map((d) => d.close()));
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  test("several migrators at once apply each migration exactly once", async () => {
    // Given twelve processes' worth of connections to one empty database
    for (let i = 0; i < 12; i++) opened.push(await openDatabase({ url, poolSize: 2 }));

    // When they all migrate at the same moment
    const results = await Promise.all(opened.map((d) => migrateToLatest(d)));

    // Then each migration succeeded in exactly one of them, and none failed
    const applied = results.flat().filter((r) => r.status === "Success").map((r) => r.migrationName);
    assert.deepEqual(applied.sort(), ALL);
    assert.deepEqual(results.flat().filter((r) => r.status !== "Success"), []);
    assert.deepEqual(await appliedMigrations(opened[0]), ALL);

    // And the store works on the result
    const store = createEventStore(opened[5]);
    await store.append("exec-1", 0, [turnEvent("run-1", "exec-1", 1)]);
    assert.equal((await store.verify("exec-1")).ok, true);
  });
});

if (ENGINES.includes("postgres")) describe("the compact stored form (migration 0018) over a log written before it", () => {
  const name = `ariadne_test_${process.pid}_compact_${Math.random().toString(36).slice(2, 8)}`;
  const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  let database: Database | undefined;
  before(() => admin(`CREATE DATABASE ${name}`));
  after(async () => {
    await database?.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  test("rows written before keep their hashes and metadata, and one chain runs on across the two forms", async () => {
    // Given a log at migration 0017: hashes stored as hex text, the whole metadata in every row
    database = await openDatabase({ url, poolSize: 2 });
    const migrator = new Migrator({ db: database.db, provider: migrationProvider, migrationTableName: "ariadne_migrations", migrationLockTableName: "ariadne_migrations_lock" });
    assert.equal((await migrator.migrateTo("0017_checkpoint_leases")).error, undefined);
    const store = createEventStore(database);
    const before = await store.append("exec-old", 0, [1, 2, 3].map((t) => turnEvent("run-old", "exec-old", t)));
    const stored = async (version: number) =>
      (await sql<{ metadata: Record<string, unknown>; hash: unknown }>`
        SELECT metadata, hash FROM ariadne_events WHERE stream_id = 'exec-old' AND stream_version = ${version}`.execute(database!.db)).rows[0];
    assert.equal((await stored(1)).metadata.runId, "run-old");

    // When 0018 converts it and the stream goes on
    assert.deepEqual((await migrator.migrateTo("0018_compact_events")).results?.map((r) => r.migrationName), ["0018_compact_events"]);
    const after = await store.append("exec-old", 3, [4, 5].map((t) => turnEvent("run-old", "exec-old", t)));

    // Then the old rows read back as they were appended, hashes and metadata alike, and keep their whole metadata
    const events = await store.readStream("exec-old");
    assert.deepEqual(events.map((e) => [e.hash, e.prevHash, e.metadata]), [...before.events, ...after.events].map((e) => [e.hash, e.prevHash, e.metadata]));
    assert.equal((await stored(1)).metadata.runId, "run-old");
    // The new rows store only what the columns do not hold, and hashes as their 32 bytes
    assert.deepEqual((await stored(4)).metadata, { causationId: null });
    assert.equal(Buffer.from((await stored(4)).hash as Uint8Array).toString("hex"), after.events[0].hash);
    assert.equal(after.events[0].prevHash, before.events[2].hash);
    // And the one chain verifies, head included
    assert.deepEqual(await store.verify("exec-old"), { ok: true, streamId: "exec-old", count: 5, lastHash: after.events[1].hash });
  });
});

async function appliedMigrations(database: Database): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM ariadne_migrations ORDER BY name`.execute(database.db);
  return rows.map((r) => r.name);
}
