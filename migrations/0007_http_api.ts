import { type Kysely, sql } from "kysely";

/**
 * What the HTTP API keeps beside the log: API keys (only the sha256 of their
 * secret) and Idempotency-Key reservations. Which tenant submitted a run is
 * the `tenant` column of ariadne_runs (0006); this adds the index a tenant's
 * newest-first run list reads.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_api_keys (
      key_id text PRIMARY KEY,
      secret_sha256 text NOT NULL UNIQUE,
      tenant text NOT NULL,
      role text NOT NULL CHECK (role IN ('client', 'auditor', 'admin')),
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`.execute(db);

  // A reservation is taken before the run is submitted (run_id NULL), so two
  // concurrent requests with one key cannot both start a run.
  await sql`
    CREATE TABLE ariadne_idempotency_keys (
      tenant text NOT NULL,
      idempotency_key text NOT NULL,
      request_sha256 text NOT NULL,
      run_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant, idempotency_key)
    )`.execute(db);

  await sql`CREATE INDEX ariadne_runs_by_tenant ON ariadne_runs (tenant, created_at DESC, run_id DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ariadne_runs_by_tenant`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_idempotency_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_api_keys`.execute(db);
}
