import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { type Database, migrateToLatest, openDatabase } from "../../db/index.ts";
import { createEventStore } from "../../events/index.ts";
import { migrations } from "../../migrations/index.ts";
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

async function appliedMigrations(database: Database): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM ariadne_migrations ORDER BY name`.execute(database.db);
  return rows.map((r) => r.name);
}
