import { type Kysely, sql } from "kysely";

/**
 * A run's state on its row, so the API filters and pages runs by state in SQL
 * (issue 18) instead of projecting every run to learn it.
 *
 * `status` is queued (submitted, not yet taken), running (a lease was taken;
 * the lease columns say whether its owner is still alive), interrupted, or the
 * final settled / failed / cancelled. A trigger keeps it in step with `state`
 * on every insert and every change of `state` (submit, lease taken or forced,
 * released, interrupted, finished), so no writer can forget it. The final
 * state is read off the log once, when the row is finished: Main's first
 * settled / failed / cancelled event, else cancelled (taken off the queue
 * before Main was admitted), which is the rule projections/runState.ts folds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_runs ADD COLUMN status text`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_run_status(p_state text, p_main text) RETURNS text
    LANGUAGE sql STABLE AS $$
      SELECT CASE p_state
        WHEN 'submitted' THEN 'queued'
        WHEN 'finished' THEN coalesce(
          (SELECT e.type FROM ariadne_events e
           WHERE e.stream_id = 'executor-' || p_main AND e.type IN ('settled', 'failed', 'cancelled')
           ORDER BY e.stream_version LIMIT 1),
          'cancelled')
        ELSE p_state
      END
    $$`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_runs_keep_status() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      NEW.status := ariadne_run_status(NEW.state, NEW.main_executor_id);
      RETURN NEW;
    END $$`.execute(db);
  // OF state: a heartbeat (lease_expires_at only) does not fire it.
  await sql`
    CREATE TRIGGER ariadne_runs_status BEFORE INSERT OR UPDATE OF state ON ariadne_runs
    FOR EACH ROW EXECUTE FUNCTION ariadne_runs_keep_status()`.execute(db);
  // Backfill: runs recorded before this migration.
  await sql`UPDATE ariadne_runs SET status = ariadne_run_status(state, main_executor_id)`.execute(db);
  await sql`ALTER TABLE ariadne_runs ALTER COLUMN status SET NOT NULL`.execute(db);
  await sql`
    ALTER TABLE ariadne_runs ADD CONSTRAINT ariadne_runs_status_known
    CHECK (status IN ('queued', 'running', 'interrupted', 'settled', 'failed', 'cancelled'))`.execute(db);
  // The API lists runs with a tenant only: by tenant and state, and (admins) by state or by age alone.
  await sql`CREATE INDEX ariadne_runs_tenant_status ON ariadne_runs (tenant, status, created_at DESC, run_id DESC) WHERE tenant IS NOT NULL`.execute(db);
  await sql`CREATE INDEX ariadne_runs_status_newest ON ariadne_runs (status, created_at DESC, run_id DESC) WHERE tenant IS NOT NULL`.execute(db);
  await sql`CREATE INDEX ariadne_runs_newest ON ariadne_runs (created_at DESC, run_id DESC) WHERE tenant IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS ariadne_runs_status ON ariadne_runs`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_runs_keep_status()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_run_status(text, text)`.execute(db);
  await sql`DROP INDEX IF EXISTS ariadne_runs_tenant_status`.execute(db);
  await sql`DROP INDEX IF EXISTS ariadne_runs_status_newest`.execute(db);
  await sql`DROP INDEX IF EXISTS ariadne_runs_newest`.execute(db);
  await sql`ALTER TABLE ariadne_runs DROP COLUMN IF EXISTS status`.execute(db);
}
