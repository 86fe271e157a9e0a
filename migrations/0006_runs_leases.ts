import { type Kysely, sql } from "kysely";
import * as appendV2 from "./0002_append_v2.ts";

/**
 * Runs as a unit of work for workers, and fencing.
 *
 * - `ariadne_runs`: one row per run, the queue and the lease. A worker takes a
 *   run (submitted, or running with an expired lease) with FOR UPDATE SKIP
 *   LOCKED and increments its epoch; the heartbeat renews lease_expires_at.
 * - ariadne_append, third version: everything 0002 does (stream lock, expected
 *   version, transaction-order guard, chain, one INSERT), plus an optional
 *   fence (run id, epoch). With a fence, the run's row is read under FOR KEY
 *   SHARE in the same call: a stale epoch raises AR409 and nothing is written,
 *   and a takeover (FOR UPDATE) waits for an append in flight, so a paused old
 *   owner can never write after the new owner has read the streams.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_runs (
      run_id text PRIMARY KEY,
      main_executor_id text NOT NULL UNIQUE,
      question text NOT NULL,
      options jsonb NOT NULL DEFAULT '{}'::jsonb,
      state text NOT NULL CHECK (state IN ('submitted', 'running', 'interrupted', 'finished')),
      lease_owner text,
      lease_expires_at timestamptz,
      epoch bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- Set by the HTTP API (later); the command line leaves it null.
      tenant text
    )`.execute(db);
  // What a worker polls for: submitted runs, and running ones whose lease ran out.
  await sql`CREATE INDEX ariadne_runs_takeable ON ariadne_runs (state, lease_expires_at) WHERE state IN ('submitted', 'running')`.execute(db);

  // A new parameter list is a new function in PostgreSQL: drop the old one so calls stay unambiguous.
  await sql`DROP FUNCTION ariadne_append(text, integer, jsonb)`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_append(p_stream text, p_expected integer, p_events jsonb,
                                   p_run text DEFAULT NULL, p_epoch bigint DEFAULT NULL)
    RETURNS TABLE (global_position bigint, stream_version integer, prev_hash text, hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
      -- Set when this transaction wrote before calling: its id then predates the lock below.
      v_xid xid8 := pg_current_xact_id_if_assigned();
      v_current integer;
      v_prev text;
      v_prevs text[] := '{}';
      v_hashes text[] := '{}';
      v_canonical text;
      v_epoch bigint;
    BEGIN
      -- An advisory lock (which takes no transaction id) before the first write: appends to one
      -- stream get increasing transaction ids, so (tx_id, position) order keeps stream order.
      PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
      IF p_epoch IS NOT NULL THEN
        -- KEY SHARE: heartbeats (no key update) pass; a takeover (FOR UPDATE) waits for this commit.
        SELECT r.epoch INTO v_epoch FROM ariadne_runs r WHERE r.run_id = p_run FOR KEY SHARE;
        IF v_epoch IS DISTINCT FROM p_epoch THEN
          RAISE EXCEPTION 'run % is at epoch %, this writer holds epoch %', p_run, coalesce(v_epoch::text, 'none'), p_epoch
            USING ERRCODE = 'AR409', DETAIL = coalesce(v_epoch::text, '');
        END IF;
        IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_events) AS x WHERE x->'metadata'->>'runId' IS DISTINCT FROM p_run) THEN
          RAISE EXCEPTION 'a writer fenced to run % may only append that run''s events', p_run
            USING ERRCODE = 'AR409', DETAIL = v_epoch::text;
        END IF;
      END IF;
      SELECT s.version, s.last_hash INTO v_current, v_prev FROM ariadne_streams s WHERE s.stream_id = p_stream;
      IF NOT FOUND THEN
        v_current := 0;
        v_prev := repeat('0', 64);
      END IF;
      IF v_current <> p_expected THEN
        RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, v_current, p_expected
          USING ERRCODE = 'AR412', DETAIL = v_current::text;
      END IF;
      IF v_xid IS NOT NULL AND EXISTS (
        SELECT 1 FROM ariadne_events e
        WHERE e.stream_id = p_stream AND e.stream_version = v_current AND e.tx_id > v_xid
      ) THEN
        RAISE EXCEPTION 'stream % was appended to by a younger transaction; retry this transaction', p_stream
          USING ERRCODE = '40001', HINT = 'append before any other write in the transaction, or retry it';
      END IF;
      -- p_events: [{event_id, type, schema_version, data, metadata, recorded_at, canonical}], as in 0001.
      FOR v_canonical IN SELECT x->>'canonical' FROM jsonb_array_elements(p_events) AS x LOOP
        v_prevs := v_prevs || v_prev;
        v_prev := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
        v_hashes := v_hashes || v_prev;
      END LOOP;
      RETURN QUERY
      INSERT INTO ariadne_events AS e (event_id, stream_id, stream_version, run_id, executor_id, type,
                                       schema_version, data, metadata, recorded_at, prev_hash, hash)
      SELECT (x.ev->>'event_id')::uuid, p_stream, p_expected + x.n::integer, x.ev->'metadata'->>'runId',
             x.ev->'metadata'->>'executorId', x.ev->>'type', (x.ev->>'schema_version')::integer,
             x.ev->'data', x.ev->'metadata', (x.ev->>'recorded_at')::timestamptz, v_prevs[x.n], v_hashes[x.n]
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x(ev, n)
      ORDER BY x.n
      RETURNING e.global_position, e.stream_version, e.prev_hash, e.hash;
      INSERT INTO ariadne_streams AS s (stream_id, version, last_hash)
      VALUES (p_stream, p_expected + cardinality(v_hashes), v_prev)
      ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, last_hash = excluded.last_hash;
    END $$`.execute(db);
}

/** Restores 0002's function and drops the runs table. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_append(text, integer, jsonb, text, bigint)`.execute(db);
  await appendV2.up(db);
  await sql`DROP TABLE IF EXISTS ariadne_runs`.execute(db);
}
