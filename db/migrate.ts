import { Migrator, sql, type MigrationResult } from "kysely";
import { migrationProvider, migrations } from "../migrations/index.ts";
import { AriadneError } from "../core/errors.ts";
import type { Database } from "./openDatabase.ts";

/**
 * Applies every pending migration. Safe to call at every start-up and from
 * several processes at once: Kysely's migrator takes an advisory lock.
 */
export async function migrateToLatest(database: Database): Promise<MigrationResult[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: migrationProvider,
    migrationTableName: "ariadne_migrations",
    migrationLockTableName: "ariadne_migrations_lock",
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new AriadneError("MIGRATION", 500, `migration ${failed} failed on ${database.location}: ${(error as Error).message ?? error}`, { cause: error });
  }
  return results;
}

/** Migrations this code knows that the database has not applied: none means the schema is current. */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const result = await sql<{ name: string }>`SELECT name FROM ariadne_migrations`.execute(database.db);
  const applied = new Set(result.rows.map((r) => r.name));
  return Object.keys(migrations).filter((m) => !applied.has(m));
}
