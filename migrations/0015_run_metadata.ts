import { type Kysely, sql } from "kysely";

/**
 * A run's metadata: the string map its submitter gave (POST /v1/runs `metadata`,
 * bounded by runs/runMetadata.ts), also recorded in its run_submitted fact. On
 * the row so the API can filter the list by it (`metadata[key]=value`, a jsonb
 * containment the GIN index answers).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_runs ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb`.execute(db);
  await sql`CREATE INDEX ariadne_runs_metadata ON ariadne_runs USING gin (metadata jsonb_path_ops) WHERE tenant IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ariadne_runs_metadata`.execute(db);
  await sql`ALTER TABLE ariadne_runs DROP COLUMN IF EXISTS metadata`.execute(db);
}
