import { type Kysely, sql } from "kysely";

/**
 * The append-only event log. Appends go through one SQL function so that the
 * expected-version check, the hash chain and the insert happen in one round
 * trip and one transaction, on PostgreSQL and PGlite alike.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_events (
      global_position bigserial PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      stream_id text NOT NULL,
      stream_version integer NOT NULL CHECK (stream_version > 0),
      run_id text NOT NULL,
      executor_id text NOT NULL,
      type text NOT NULL,
      schema_version integer NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      recorded_at timestamptz NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      -- The writing transaction: subscriptions read below the oldest open one,
      -- so a slow commit with a lower position is never skipped.
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      UNIQUE (stream_id, stream_version)
    )`.execute(db);
  await sql`CREATE INDEX ariadne_events_run ON ariadne_events (run_id, global_position)`.execute(db);
  await sql`CREATE INDEX ariadne_events_tx ON ariadne_events (tx_id, global_position)`.execute(db);

  await sql`
    CREATE TABLE ariadne_streams (
      stream_id text PRIMARY KEY,
      version integer NOT NULL,
      last_hash text NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE ariadne_checkpoints (
      subscription_id text PRIMARY KEY,
      tx_id text NOT NULL,
      position text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // The log is append-only: no code path updates or deletes events, and the database refuses it too.
  await sql`
    CREATE FUNCTION ariadne_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ariadne_events is append-only: % refused', TG_OP USING ERRCODE = 'AR403';
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_events_append_only BEFORE UPDATE OR DELETE ON ariadne_events
    FOR EACH ROW EXECUTE FUNCTION ariadne_refuse_change()`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_events_no_truncate BEFORE TRUNCATE ON ariadne_events
    FOR EACH STATEMENT EXECUTE FUNCTION ariadne_refuse_change()`.execute(db);

  // p_events: [{event_id, type, schema_version, data, metadata, recorded_at, canonical}]
  // canonical is the RFC 8785 JSON of the event, computed by the client; the chain is
  // hash = sha256(prev_hash || canonical), so verify() can recompute it anywhere.
  await sql`
    CREATE FUNCTION ariadne_append(p_stream text, p_expected integer, p_events jsonb)
    RETURNS TABLE (global_position bigint, stream_version integer, prev_hash text, hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_current integer;
      v_prev text;
      v_hash text;
      v_event jsonb;
      v_n integer := 0;
    BEGIN
      -- An advisory lock (which takes no transaction id) before the first write: appends to one
      -- stream get increasing transaction ids, so (tx_id, position) order keeps stream order.
      PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
      SELECT s.version, s.last_hash INTO v_current, v_prev FROM ariadne_streams s WHERE s.stream_id = p_stream;
      IF NOT FOUND THEN
        v_current := 0;
        v_prev := repeat('0', 64);
      END IF;
      IF v_current <> p_expected THEN
        RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, v_current, p_expected
          USING ERRCODE = 'AR412', DETAIL = v_current::text;
      END IF;
      FOR v_event IN SELECT value FROM jsonb_array_elements(p_events) LOOP
        v_n := v_n + 1;
        v_hash := encode(sha256(convert_to(v_prev || (v_event->>'canonical'), 'UTF8')), 'hex');
        INSERT INTO ariadne_events AS e (event_id, stream_id, stream_version, run_id, executor_id, type,
                                         schema_version, data, metadata, recorded_at, prev_hash, hash)
        VALUES ((v_event->>'event_id')::uuid, p_stream, p_expected + v_n, v_event->'metadata'->>'runId',
                v_event->'metadata'->>'executorId', v_event->>'type', (v_event->>'schema_version')::integer,
                v_event->'data', v_event->'metadata', (v_event->>'recorded_at')::timestamptz, v_prev, v_hash)
        RETURNING e.global_position, e.stream_version, e.prev_hash, e.hash
        INTO global_position, stream_version, prev_hash, hash;
        RETURN NEXT;
        v_prev := v_hash;
      END LOOP;
      INSERT INTO ariadne_streams AS s (stream_id, version, last_hash) VALUES (p_stream, p_expected + v_n, v_prev)
      ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, last_hash = excluded.last_hash;
      PERFORM pg_notify('ariadne_events', p_stream);
    END $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_append(text, integer, jsonb)`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_checkpoints`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_streams`.execute(db);
  await sql`DROP TABLE IF EXISTS ariadne_events`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_refuse_change()`.execute(db);
}
