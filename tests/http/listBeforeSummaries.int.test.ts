import { test } from "node:test";
import assert from "node:assert/strict";
import { Migrator, sql } from "kysely";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { createEventStore } from "../../events/index.ts";
import { createLeasedRuns } from "../../http/runs/leasedRuns.ts";
import { migrationProvider } from "../../migrations/index.ts";
import { submitRun } from "../../runs/index.ts";

/**
 * Runs recorded before migration 0019 have no kept view: a page folds them from
 * their events, as pages did before, and keeps their views then (the view is
 * the TypeScript fold's, so the migration itself cannot backfill it).
 */
test("a run recorded before migration 0019 lists, and its view is kept by that first read", async () => {
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    // Given a store at 0018 with a queued run in it
    const migrator = new Migrator({ db: database.db, provider: migrationProvider, migrationTableName: "ariadne_migrations", migrationLockTableName: "ariadne_migrations_lock" });
    assert.equal((await migrator.migrateTo("0018_compact_events")).error, undefined);
    const store = createEventStore(database);
    const { runId } = await submitRun(store, { question: "recorded before 0019", tenant: "old" });

    // When the store is migrated and a page read
    assert.deepEqual((await migrateToLatest(database)).map((r) => r.migrationName), ["0019_run_summaries"]);
    const page = await createLeasedRuns({ store }).list("old", { limit: 10 });

    // Then the run is listed, and its view kept as listed
    assert.deepEqual(page.runs.map((r) => [r.id, r.state, r.question]), [[runId, "queued", "recorded before 0019"]]);
    const kept = await sql<{ view: unknown }>`SELECT view FROM ariadne_run_summaries WHERE run_id = ${runId}`.execute(database.db);
    assert.deepEqual(kept.rows.map((r) => r.view), [page.runs[0]]);
  } finally {
    await database.close();
  }
});

test("a kept view that cannot be written (a full disk, say) costs the next read a fold, never the page", async () => {
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await migrateToLatest(database);
    const store = createEventStore(database);
    const { runId } = await submitRun(store, { question: "views cannot be kept", tenant: "t" });
    await sql`DELETE FROM ariadne_run_summaries`.execute(database.db);
    // Every write of a kept view fails, as it would on a full disk.
    await sql`CREATE FUNCTION refuse_summary() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$`.execute(database.db);
    await sql`CREATE TRIGGER refuse_summary BEFORE INSERT OR UPDATE ON ariadne_run_summaries FOR EACH ROW EXECUTE FUNCTION refuse_summary()`.execute(database.db);

    const runs = createLeasedRuns({ store });
    const page = await runs.list("t", { limit: 10 });
    assert.deepEqual(page.runs.map((r) => [r.id, r.state]), [[runId, "queued"]]);
    assert.equal((await runs.get("t", runId))?.id, runId);
    assert.equal((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_run_summaries`.execute(database.db)).rows[0]!.n, 0);
  } finally {
    await database.close();
  }
});
