import { type Kysely, sql } from "kysely";

/**
 * ariadne_append, second version. Same signature and result; three changes:
 *
 * - Transaction order. Subscriptions read in (transaction id, position) order,
 *   so a stream's events must get increasing transaction ids. The stream lock
 *   ensures that for a transaction that gets its id at its first insert. One
 *   that already had an id (it wrote before appending) may be older than the
 *   stream's last writer, and its events would be delivered before that
 *   writer's lower versions: such an append is refused as a serialization
 *   failure (40001), to be retried in a new transaction.
 * - No NOTIFY. A transaction that notifies holds a cluster-wide lock through its
 *   commit, WAL flush included, which serialised every append in the cluster.
 *   The event store notifies after the commit instead (Database.notify);
 *   subscriptions also poll, so an append made elsewhere is seen within pollMs.
 * - One INSERT per batch instead of one per event: the chain is computed first,
 *   then all rows go in with one statement, in version order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION ariadne_append(p_stream text, p_expected integer, p_events jsonb)
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

/** Restores the function of 0001_event_log. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION ariadne_append(p_stream text, p_expected integer, p_events jsonb)
    RETURNS TABLE (global_position bigint, stream_version integer, prev_hash text, hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_current integer;
      v_prev text;
      v_hash text;
      v_event jsonb;
      v_n integer := 0;
    BEGIN
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
