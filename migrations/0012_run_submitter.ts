import { type Kysely, sql } from "kysely";

/**
 * The API key that submitted a run (null from the command line, and for runs
 * recorded before this migration), so the API can cap a key's queued runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_runs ADD COLUMN key_id text`.execute(db);
  await sql`CREATE INDEX ariadne_runs_queued_by_key ON ariadne_runs (key_id) WHERE status = 'queued'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ariadne_runs_queued_by_key`.execute(db);
  await sql`ALTER TABLE ariadne_runs DROP COLUMN IF EXISTS key_id`.execute(db);
}
