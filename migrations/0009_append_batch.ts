import { type Kysely, sql } from "kysely";

/**
 * Group commit: ariadne_append_batch appends to several streams in one call
 * and one transaction, so appends that arrive while another is committing share
 * the next commit instead of each paying a round trip, a transaction and a WAL
 * flush of its own. Each append keeps its own outcome: one stale version or
 * stale fence fails that append alone (a status row, nothing of it written);
 * the others commit.
 *
 * - Arguments are parallel arrays, one entry per append (stream, expected
 *   version, fence run and epoch, event count), and the events of all appends
 *   in order, each as its canonical JSON (RFC 8785 of the hashed fields). The
 *   stored columns are read from that text, so what is stored and what is
 *   hashed cannot differ, and the payload is sent once, not twice.
 * - Every stream is locked first, in one global order (no two batches can
 *   deadlock), before anything is written. The transaction id is taken after
 *   the locks, so appends to one stream still get increasing transaction ids
 *   and (tx_id, position) order keeps stream order for subscriptions.
 * - Called inside a transaction that wrote before (its id predates the locks),
 *   the 0002 transaction-order guard applies, and fails the call (40001).
 * - A fenced append may only carry its run's events (else AR409, as for a
 *   stale epoch). An event whose canonical text names another stream or
 *   version than its append is a caller bug: the whole call fails (AR400).
 *
 * Returns one row per stored event (status 'ok') and one per failed append
 * (status AR412 or AR409, detail: the stream's version or the run's epoch).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION ariadne_append_batch(p_streams text[], p_expected integer[], p_runs text[], p_epochs bigint[],
                                         p_counts integer[], p_events text[])
    RETURNS TABLE (append_index integer, status text, detail text, global_position bigint,
                   stream_version integer, prev_hash text, hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_xid xid8 := pg_current_xact_id_if_assigned();
      v_n integer := cardinality(p_streams);
      v_first integer[] := '{}';
      v_next integer := 1;
      v_i integer;
      v_k integer;
      v_current integer;
      v_prev text;
      v_epoch bigint;
      v_ev jsonb;
      v_evs jsonb[];
      v_canonical text;
      v_hash text;
      v_position bigint;
      v_foreign boolean;
    BEGIN
      IF cardinality(p_expected) <> v_n OR cardinality(p_runs) <> v_n OR cardinality(p_epochs) <> v_n
         OR cardinality(p_counts) <> v_n THEN
        RAISE EXCEPTION 'ariadne_append_batch: argument arrays differ in length' USING ERRCODE = 'AR400';
      END IF;
      FOR v_i IN 1..v_n LOOP
        v_first := v_first || v_next;
        v_next := v_next + p_counts[v_i];
      END LOOP;
      IF v_next - 1 <> coalesce(cardinality(p_events), 0) THEN
        RAISE EXCEPTION 'ariadne_append_batch: % events given, counts add up to %', cardinality(p_events), v_next - 1
          USING ERRCODE = 'AR400';
      END IF;

      -- Locks first, in one order for every caller; advisory locks take no transaction id.
      PERFORM pg_advisory_xact_lock(k)
      FROM (SELECT DISTINCT hashtextextended(s, 0) AS k FROM unnest(p_streams) AS s) AS keys ORDER BY k;

      FOR v_i IN 1..v_n LOOP
        -- A failed append's row leaves the event columns null.
        global_position := NULL; stream_version := NULL; prev_hash := NULL; hash := NULL;
        IF p_epochs[v_i] IS NOT NULL THEN
          -- KEY SHARE: heartbeats (no key update) pass; a takeover (FOR UPDATE) waits for this commit.
          SELECT r.epoch INTO v_epoch FROM ariadne_runs r WHERE r.run_id = p_runs[v_i] FOR KEY SHARE;
          IF v_epoch IS DISTINCT FROM p_epochs[v_i] THEN
            append_index := v_i; status := 'AR409'; detail := coalesce(v_epoch::text, '');
            RETURN NEXT;
            CONTINUE;
          END IF;
        END IF;
        -- Each event's stored columns come from its canonical text, parsed once here.
        v_evs := '{}';
        v_foreign := false;
        FOR v_k IN 0..p_counts[v_i] - 1 LOOP
          v_ev := p_events[v_first[v_i] + v_k]::jsonb;
          IF v_ev->>'streamId' IS DISTINCT FROM p_streams[v_i]
             OR (v_ev->>'streamVersion')::integer IS DISTINCT FROM p_expected[v_i] + v_k + 1 THEN
            RAISE EXCEPTION 'ariadne_append_batch: event % of the append to % names another stream or version',
              v_k + 1, p_streams[v_i] USING ERRCODE = 'AR400';
          END IF;
          v_foreign := v_foreign OR v_ev->'metadata'->>'runId' IS DISTINCT FROM p_runs[v_i];
          v_evs := v_evs || v_ev;
        END LOOP;
        IF p_epochs[v_i] IS NOT NULL AND v_foreign THEN
          -- A writer fenced to a run may only append that run's events.
          append_index := v_i; status := 'AR409'; detail := v_epoch::text;
          RETURN NEXT;
          CONTINUE;
        END IF;

        SELECT s.version, s.last_hash INTO v_current, v_prev FROM ariadne_streams s WHERE s.stream_id = p_streams[v_i];
        IF NOT FOUND THEN
          v_current := 0;
          v_prev := repeat('0', 64);
        END IF;
        IF v_current <> p_expected[v_i] THEN
          append_index := v_i; status := 'AR412'; detail := v_current::text;
          RETURN NEXT;
          CONTINUE;
        END IF;
        IF v_xid IS NOT NULL AND EXISTS (
          SELECT 1 FROM ariadne_events e
          WHERE e.stream_id = p_streams[v_i] AND e.stream_version = v_current AND e.tx_id > v_xid
        ) THEN
          -- The caller's transaction is out of order as a whole: it must roll back and retry.
          RAISE EXCEPTION 'stream % was appended to by a younger transaction; retry this transaction', p_streams[v_i]
            USING ERRCODE = '40001', DETAIL = p_streams[v_i], HINT = 'append before any other write in the transaction, or retry it';
        END IF;

        FOR v_k IN 0..p_counts[v_i] - 1 LOOP
          v_ev := v_evs[v_k + 1];
          v_canonical := p_events[v_first[v_i] + v_k];
          v_hash := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
          INSERT INTO ariadne_events (event_id, stream_id, stream_version, run_id, executor_id, type,
                                      schema_version, data, metadata, recorded_at, prev_hash, hash)
          VALUES ((v_ev->>'eventId')::uuid, p_streams[v_i], p_expected[v_i] + v_k + 1, v_ev->'metadata'->>'runId',
                  v_ev->'metadata'->>'executorId', v_ev->>'type', (v_ev->>'schemaVersion')::integer,
                  v_ev->'data', v_ev->'metadata', (v_ev->>'recordedAt')::timestamptz, v_prev, v_hash)
          RETURNING ariadne_events.global_position INTO v_position;
          append_index := v_i; status := 'ok'; detail := NULL; global_position := v_position;
          stream_version := p_expected[v_i] + v_k + 1; prev_hash := v_prev; hash := v_hash;
          RETURN NEXT;
          v_prev := v_hash;
        END LOOP;

        IF v_current = 0 THEN
          INSERT INTO ariadne_streams (stream_id, version, last_hash) VALUES (p_streams[v_i], p_expected[v_i] + p_counts[v_i], v_prev);
        ELSE
          UPDATE ariadne_streams SET version = p_expected[v_i] + p_counts[v_i], last_hash = v_prev
          WHERE stream_id = p_streams[v_i];
        END IF;
      END LOOP;
    END $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_append_batch(text[], integer[], text[], bigint[], integer[], text[])`.execute(db);
}
