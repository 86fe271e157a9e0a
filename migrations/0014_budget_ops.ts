import { type Kysely, sql } from "kysely";

/**
 * Reserve and settle, once each, whatever the connection does. A call whose
 * reply was lost (the server restarted after it committed) is retried by its
 * caller; with the caller's operation id (`p_op`: the reservation's id, and
 * `<id>:settle`) the retry finds the first call's key in ariadne_budget_ops and
 * changes nothing: a reservation is never taken twice, a settle never counted
 * twice (which would drive reserved below zero). The key is claimed first
 * (`ON CONFLICT DO NOTHING` waits for a first call still in flight), in the
 * same transaction as the UPDATE, so both commit or neither. Without `p_op`
 * the functions behave as 0008's. Keys are dropped with the run's open
 * reservations (releaseOpenReservations).
 */
const fence = sql.raw(`
      IF p_epoch IS NOT NULL THEN
        SELECT r.epoch INTO v_epoch FROM ariadne_runs r WHERE r.run_id = p_run FOR KEY SHARE;
        IF v_epoch IS DISTINCT FROM p_epoch THEN
          RAISE EXCEPTION 'run % is at epoch %, this writer holds epoch %', p_run, coalesce(v_epoch::text, 'none'), p_epoch
            USING ERRCODE = 'AR409', DETAIL = coalesce(v_epoch::text, '');
        END IF;
      END IF;`);

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_budget_ops (
      run_id text NOT NULL,
      op_id text NOT NULL,
      ok boolean NOT NULL,
      PRIMARY KEY (run_id, op_id)
    )`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_reserve(text, text, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_settle(text, text, bigint, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_budget_reserve(p_run text, p_executor text, p_tokens bigint, p_cost bigint, p_executor_cap bigint,
                                           p_epoch bigint DEFAULT NULL, p_op text DEFAULT NULL)
    RETURNS TABLE (ok boolean, spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint, executor_spent bigint)
    LANGUAGE plpgsql AS $$
    DECLARE v_epoch bigint; v_ok boolean;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      ${fence}
      IF p_op IS NOT NULL THEN
        INSERT INTO ariadne_budget_ops (run_id, op_id, ok) VALUES (p_run, p_op, false) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          -- A retry of a call that committed: its answer again, nothing reserved twice.
          SELECT o.ok INTO v_ok FROM ariadne_budget_ops o WHERE o.run_id = p_run AND o.op_id = p_op;
          RETURN QUERY
          SELECT v_ok, b.spent_tokens, b.reserved_tokens, b.max_tokens,
                 b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros,
                 COALESCE((b.executor_spent->>p_executor)::bigint, 0)
          FROM ariadne_run_budgets b WHERE b.run_id = p_run;
          RETURN;
        END IF;
      END IF;
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
      IF FOUND THEN
        IF p_op IS NOT NULL THEN
          UPDATE ariadne_budget_ops o SET ok = true WHERE o.run_id = p_run AND o.op_id = p_op;
        END IF;
      ELSE
        RETURN QUERY
        SELECT false, b.spent_tokens, b.reserved_tokens, b.max_tokens,
               b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros,
               COALESCE((b.executor_spent->>p_executor)::bigint, 0)
        FROM ariadne_run_budgets b WHERE b.run_id = p_run;
      END IF;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_budget_settle(p_run text, p_executor text, p_reserved_tokens bigint, p_reserved_cost bigint,
                                          p_tokens bigint, p_cost bigint, p_epoch bigint DEFAULT NULL, p_op text DEFAULT NULL)
    RETURNS TABLE (spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint)
    LANGUAGE plpgsql AS $$
    DECLARE v_epoch bigint;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      ${fence}
      IF p_op IS NOT NULL THEN
        INSERT INTO ariadne_budget_ops (run_id, op_id, ok) VALUES (p_run, p_op, true) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          -- A retry of a settle that committed: the totals as they stand, nothing counted twice.
          RETURN QUERY
          SELECT b.spent_tokens, b.reserved_tokens, b.max_tokens, b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros
          FROM ariadne_run_budgets b WHERE b.run_id = p_run;
          RETURN;
        END IF;
      END IF;
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
