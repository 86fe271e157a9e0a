import { type Kysely, sql } from "kysely";

/**
 * The budget ledger: one row per run, shared by every executor of the run.
 *
 * A reservation is one conditional UPDATE of the run's row (WHERE spent +
 * reserved + amount <= cap): concurrent executors queue on the row lock and
 * each re-checks the condition against the row as the previous one left it, so
 * no interleaving takes the run over a cap, on PostgreSQL and PGlite alike.
 *
 * Both functions commit with synchronous_commit off: a reservation lost in a
 * crash is exactly a released one, and a lost settle is recomputed from the
 * `budget_settled` events (written with the turn, durably) by
 * releaseOpenReservations. Saving the WAL flush keeps a reservation at the cost
 * of a round trip, not of an fsync.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_run_budgets (
      run_id text PRIMARY KEY,
      -- The run's resolved caps (governance/config.ts), frozen at the run's start.
      caps jsonb NOT NULL,
      max_tokens bigint NOT NULL CHECK (max_tokens > 0),
      max_cost_micros bigint NOT NULL CHECK (max_cost_micros > 0),
      reserved_tokens bigint NOT NULL DEFAULT 0 CHECK (reserved_tokens >= 0),
      spent_tokens bigint NOT NULL DEFAULT 0,
      reserved_cost_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_cost_micros >= 0),
      spent_cost_micros bigint NOT NULL DEFAULT 0,
      open_reservations integer NOT NULL DEFAULT 0 CHECK (open_reservations >= 0),
      -- Settled tokens per executor id, for the per-executor token cap.
      executor_spent jsonb NOT NULL DEFAULT '{}',
      opened_at timestamptz NOT NULL
    )`.execute(db);

  // Reminder keys raised in a run: the primary key is the dedupe (never the same fact twice).
  await sql`
    CREATE TABLE ariadne_run_reminders (
      run_id text NOT NULL,
      key text NOT NULL,
      PRIMARY KEY (run_id, key)
    )`.execute(db);

  await sql`
    CREATE FUNCTION ariadne_budget_reserve(p_run text, p_executor text, p_tokens bigint, p_cost bigint, p_executor_cap bigint)
    RETURNS TABLE (ok boolean, spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint, executor_spent bigint)
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      RETURN QUERY
      UPDATE ariadne_run_budgets b
      SET reserved_tokens = b.reserved_tokens + p_tokens,
          reserved_cost_micros = b.reserved_cost_micros + p_cost,
          open_reservations = b.open_reservations + 1
      WHERE b.run_id = p_run
        AND b.spent_tokens + b.reserved_tokens + p_tokens <= b.max_tokens
        AND b.spent_cost_micros + b.reserved_cost_micros + p_cost <= b.max_cost_micros
        AND COALESCE((b.executor_spent->>p_executor)::bigint, 0) + p_tokens <= p_executor_cap
      RETURNING true, b.spent_tokens, b.reserved_tokens, b.max_tokens,
                b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros,
                COALESCE((b.executor_spent->>p_executor)::bigint, 0);
      IF NOT FOUND THEN
        -- Refused (or no such run): report the row as it stands, so the caller can name the limit.
        RETURN QUERY
        SELECT false, b.spent_tokens, b.reserved_tokens, b.max_tokens,
               b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros,
               COALESCE((b.executor_spent->>p_executor)::bigint, 0)
        FROM ariadne_run_budgets b WHERE b.run_id = p_run;
      END IF;
    END $$`.execute(db);

  await sql`
    CREATE FUNCTION ariadne_budget_settle(p_run text, p_executor text, p_reserved_tokens bigint, p_reserved_cost bigint,
                                          p_tokens bigint, p_cost bigint)
    RETURNS TABLE (spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint)
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      RETURN QUERY
      UPDATE ariadne_run_budgets b
      SET reserved_tokens = b.reserved_tokens - p_reserved_tokens,
          reserved_cost_micros = b.reserved_cost_micros - p_reserved_cost,
          open_reservations = b.open_reservations - 1,
          spent_tokens = b.spent_tokens + p_tokens,
          spent_cost_micros = b.spent_cost_micros + p_cost,
          executor_spent = jsonb_set(b.executor_spent, ARRAY[p_executor],
                                     to_jsonb(COALESCE((b.executor_spent->>p_executor)::bigint, 0) + p_tokens))
      WHERE b.run_id = p_run
      RETURNING b.spent_tokens, b.reserved_tokens, b.max_tokens, b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros;
    END $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_budget_settle(text, text, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_budget_reserve(text, text, bigint, bigint, bigint)`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_run_reminders`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_run_budgets`.execute(db);
}
