import { type Kysely, sql } from "kysely";

/**
 * The budget ledger fenced like the log: ariadne_budget_reserve and
 * ariadne_budget_settle take the caller's lease epoch (NULL: not hosted under a
 * lease, no check). The run's row is read under FOR KEY SHARE in the same call,
 * as ariadne_append does, so a paused old owner that wakes after a takeover
 * cannot reserve or settle (AR409) against a ledger the new owner has already
 * reset from the log (releaseOpenReservations); a takeover waits for one in flight.
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
  await sql`DROP FUNCTION ariadne_budget_reserve(text, text, bigint, bigint, bigint)`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_settle(text, text, bigint, bigint, bigint, bigint)`.execute(db);
  await create(db, fence, sql.raw("p_epoch bigint DEFAULT NULL"));
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION ariadne_budget_reserve(text, text, bigint, bigint, bigint, bigint)`.execute(db);
  await sql`DROP FUNCTION ariadne_budget_settle(text, text, bigint, bigint, bigint, bigint, bigint)`.execute(db);
  // 0004's signatures and bodies: the same functions with no epoch and no fence.
  await create(db, sql.raw(""), null);
}

/** Both functions, with the fence and the epoch parameter (up) or without (0004's, for down). */
async function create(db: Kysely<any>, check: ReturnType<typeof sql.raw>, epochParam: ReturnType<typeof sql.raw> | null): Promise<void> {
  const extra = epochParam ? sql`, ${epochParam}` : sql``;
  const declare = epochParam ? sql.raw("DECLARE v_epoch bigint;") : sql.raw("");
  await sql`
    CREATE FUNCTION ariadne_budget_reserve(p_run text, p_executor text, p_tokens bigint, p_cost bigint, p_executor_cap bigint${extra})
    RETURNS TABLE (ok boolean, spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint, executor_spent bigint)
    LANGUAGE plpgsql AS $$
    ${declare}
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      ${check}
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
        RETURN QUERY
        SELECT false, b.spent_tokens, b.reserved_tokens, b.max_tokens,
               b.spent_cost_micros, b.reserved_cost_micros, b.max_cost_micros,
               COALESCE((b.executor_spent->>p_executor)::bigint, 0)
        FROM ariadne_run_budgets b WHERE b.run_id = p_run;
      END IF;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_budget_settle(p_run text, p_executor text, p_reserved_tokens bigint, p_reserved_cost bigint,
                                          p_tokens bigint, p_cost bigint${extra})
    RETURNS TABLE (spent_tokens bigint, reserved_tokens bigint, max_tokens bigint,
                   spent_cost_micros bigint, reserved_cost_micros bigint, max_cost_micros bigint)
    LANGUAGE plpgsql AS $$
    ${declare}
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      ${check}
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

