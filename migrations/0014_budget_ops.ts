import { type Kysely, sql } from "kysely";

/**
 * Reserve and settle, once each, whatever the connection does. A call whose
 * reply was lost (the server restarted after it committed) is retried by its
 * caller with the same reservation id (`p_op`). The run's budget row keeps the
 * ids of its open reservations (`open_ops`): reserve adds its id in the same
 * UPDATE that reserves, settle removes it in the one that settles. So a
 * repeated reserve finds its id open and reserves nothing more; a repeated
 * settle finds it gone and counts nothing twice (which would drive reserved
 * below zero). A refused reserve changed nothing, so its retry is decided
 * afresh. The list holds only reservations in flight (one per executor at
 * most), so the row stays small and no extra row or index is written: an
 * earlier form kept a row per call in a table of its own and made governed
 * turns measurably slower (bench/overhead). Without `p_op` the functions
 * behave as 0008's. releaseOpenReservations empties the list.
 */
const fence = sql.raw(`
      IF p_epoch IS NOT NULL THEN
        SELECT r.epoch INTO v_epoch FROM ariadne_runs r WHERE r.run_id = p_run FOR KEY SHARE;
        IF v_epoch IS DISTINCT FROM p_epoch THEN
          RAISE EXCEPTION 'run % is at epoch %, this writer holds epoch %', p_run, coalesce(v_epoch::text, 'none'), p_epoch
            USING ERRCODE = 'AR409', DETAIL = coalesce(v_epoch::text, '');
        END IF;
      END IF;`);

const amounts = sql.raw(`b.spent_tokens, b.reserved_tokens, b.max_tokens, b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros`);

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_run_budgets ADD COLUMN open_ops text[] NOT NULL DEFAULT '{}'`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_reserve(text, text, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_settle(text, text, bigint, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_budget_reserve(p_run text, p_executor text, p_tokens bigint, p_cost bigint, p_executor_cap bigint,
                                           p_epoch bigint DEFAULT NULL, p_op text DEFAULT NULL)
    RETURNS TABLE (ok boolean, spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint, executor_spent bigint)
    LANGUAGE plpgsql AS $$
    DECLARE v_epoch bigint;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      ${fence}
      RETURN QUERY
      UPDATE ariadne_run_budgets b
      SET reserved_tokens = b.reserved_tokens + p_tokens,
          reserved_cost_micros = b.reserved_cost_micros + p_cost,
          open_reservations = b.open_reservations + 1,
          open_ops = CASE WHEN p_op IS NULL THEN b.open_ops ELSE array_append(b.open_ops, p_op) END
      WHERE b.run_id = p_run
        AND (p_op IS NULL OR NOT (p_op = ANY (b.open_ops)))
        AND b.spent_tokens + b.reserved_tokens + p_tokens <= b.max_tokens
        AND b.spent_cost_micros + b.reserved_cost_micros + p_cost <= b.max_cost_micros
        AND COALESCE((b.executor_spent->>p_executor)::bigint, 0) + p_tokens <= p_executor_cap
      RETURNING true, ${amounts}, COALESCE((b.executor_spent->>p_executor)::bigint, 0);
      IF NOT FOUND THEN
        -- Refused, or a retry of a reserve that committed (its id is open): the totals, nothing reserved twice.
        RETURN QUERY
        SELECT p_op IS NOT NULL AND p_op = ANY (b.open_ops), ${amounts}, COALESCE((b.executor_spent->>p_executor)::bigint, 0)
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
      RETURN QUERY
      UPDATE ariadne_run_budgets b
      SET reserved_tokens = b.reserved_tokens - p_reserved_tokens,
          reserved_cost_micros = b.reserved_cost_micros - p_reserved_cost,
          open_reservations = b.open_reservations - 1,
          open_ops = CASE WHEN p_op IS NULL THEN b.open_ops ELSE array_remove(b.open_ops, p_op) END,
          spent_tokens = b.spent_tokens + p_tokens,
          spent_cost_micros = b.spent_cost_micros + p_cost,
          executor_spent = jsonb_set(b.executor_spent, ARRAY[p_executor],
                                     to_jsonb(COALESCE((b.executor_spent->>p_executor)::bigint, 0) + p_tokens))
      WHERE b.run_id = p_run
        AND (p_op IS NULL OR p_op = ANY (b.open_ops))
      RETURNING ${amounts};
      IF NOT FOUND THEN
        -- A retry of a settle that committed (its id is no longer open): the totals as they stand.
        RETURN QUERY SELECT ${amounts} FROM ariadne_run_budgets b WHERE b.run_id = p_run;
      END IF;
    END $$`.execute(db);
}
