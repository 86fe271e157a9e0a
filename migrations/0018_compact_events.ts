import { type Kysely, sql } from "kysely";
import * as runKeyedStreams from "./0016_run_keyed_streams.ts";

/**
 * A compact stored form of an event (issue 19): what each row repeats, stored once.
 *
 * - Hashes are their 32 bytes (`bytea`), not 64 hex digits as text: 64 bytes less an
 *   event in the heap and its WAL (prev_hash and hash), and 32 less a stream head.
 *   The chain is unchanged: each hash is still sha256 over the previous one's hex
 *   digits followed by the event's canonical JSON, and readers see hex as before
 *   (events/rowToEvent.ts selects `encode(hash, 'hex')`). Existing rows are
 *   converted in place; the table is rewritten once.
 * - The run and executor ids live in their columns only: the stored metadata no
 *   longer repeats them, nor a correlation id equal to the run id (the default):
 *   about 160 bytes an event. Readers put them back (`metadataOf`), so the
 *   metadata an event is hashed with, read and exported with is the same as
 *   before, and the columns are now covered by the hash. Rows written before
 *   keep their whole metadata; verify checks that their columns agree with it.
 *
 * ariadne_append_batch keeps its arguments and result (hashes returned as hex);
 * only what it stores changes. The single-stream ariadne_append of 0006 has had
 * no caller since 0009 and would fail on the new columns: it is dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_append(text, integer, jsonb, text, bigint)`.execute(db);
  // One rewrite for both columns; the length check keeps a hand-written hash (or a wrong encoding) out.
  await sql`
    ALTER TABLE ariadne_events
      ALTER COLUMN prev_hash TYPE bytea USING decode(prev_hash, 'hex'),
      ALTER COLUMN hash TYPE bytea USING decode(hash, 'hex'),
      ADD CONSTRAINT ariadne_events_hash_bytes CHECK (octet_length(prev_hash) = 32 AND octet_length(hash) = 32)`.execute(db);
  await sql`
    ALTER TABLE ariadne_streams
      ALTER COLUMN last_hash TYPE bytea USING decode(last_hash, 'hex'),
      ADD CONSTRAINT ariadne_streams_hash_bytes CHECK (octet_length(last_hash) = 32)`.execute(db);
  // The head guard (0003) runs after the row is written: a BEFORE UPDATE row trigger locks the head first,
  // one more WAL record (Heap/LOCK, 66 bytes a turn) on every append. It refuses just the same.
  await sql`DROP TRIGGER ariadne_streams_forward_only ON ariadne_streams`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_streams_forward_only AFTER INSERT OR UPDATE OR DELETE ON ariadne_streams
    FOR EACH ROW EXECUTE FUNCTION ariadne_guard_stream_head()`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION ariadne_append_batch(p_streams text[], p_expected integer[], p_runs text[], p_epochs bigint[],
                                         p_counts integer[], p_events text[])
    RETURNS TABLE (append_index integer, status text, detail text, global_position bigint,
                   stream_version integer, prev_hash text, hash text)
    LANGUAGE plpgsql AS $$
    DECLARE
      -- Set when the calling transaction wrote before: its id then predates the locks below.
      v_xid xid8 := pg_current_xact_id_if_assigned();
      v_n integer := cardinality(p_streams);
      v_next integer := 1;
      v_start integer;
      v_count integer;
      v_stream text;
      v_expected integer;
      v_run text;
      v_fence bigint;
      v_i integer;
      v_k integer;
      v_current integer;
      v_prev bytea;
      v_epoch bigint;
      v_canonical text;
      v_ev jsonb;
      v_evs jsonb[];
      v_prevs bytea[];
      v_hashes bytea[];
      v_foreign boolean;
      -- The run whose stream this append writes: the fence's run, else the first event's.
      v_key text;
      v_first jsonb;
    BEGIN
      FOR v_i IN 1..v_n LOOP
        v_next := v_next + p_counts[v_i];
      END LOOP;
      IF cardinality(p_expected) <> v_n OR cardinality(p_runs) <> v_n OR cardinality(p_epochs) <> v_n
         OR cardinality(p_counts) <> v_n OR v_next - 1 <> cardinality(p_events) THEN
        RAISE EXCEPTION 'ariadne_append_batch: the argument arrays do not match' USING ERRCODE = 'AR400';
      END IF;
      v_next := 1;

      -- Every lock first, in one order for every caller; advisory locks take no transaction id.
      IF v_n = 1 THEN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_streams[1], 0));
      ELSE
        PERFORM pg_advisory_xact_lock(k)
        FROM (SELECT DISTINCT hashtextextended(s, 0) AS k FROM unnest(p_streams) AS s) AS keys ORDER BY k;
      END IF;

      FOR v_i IN 1..v_n LOOP
        v_stream := p_streams[v_i];
        v_expected := p_expected[v_i];
        v_run := p_runs[v_i];
        v_fence := p_epochs[v_i];
        v_count := p_counts[v_i];
        v_start := v_next;
        v_next := v_next + v_count;
        -- A failed append's row leaves the event columns null.
        append_index := v_i; detail := NULL;
        global_position := NULL; stream_version := NULL; prev_hash := NULL; hash := NULL;

        IF v_fence IS NOT NULL THEN
          -- KEY SHARE: heartbeats (no key update) pass; a takeover (FOR UPDATE) waits for this commit.
          SELECT r.epoch INTO v_epoch FROM ariadne_runs r WHERE r.run_id = v_run FOR KEY SHARE;
          IF v_epoch IS DISTINCT FROM v_fence THEN
            status := 'AR409'; detail := coalesce(v_epoch::text, '');
            RETURN NEXT;
            CONTINUE;
          END IF;
        END IF;

        -- Every statement below names the run, so a table distributed by run_id routes it to one node.
        v_first := CASE WHEN v_count > 0 THEN p_events[v_start]::jsonb END;
        v_key := coalesce(v_run, v_first->'metadata'->>'runId');
        SELECT s.version, s.last_hash INTO v_current, v_prev FROM ariadne_streams s
        WHERE s.run_id = v_key AND s.stream_id = v_stream;
        IF NOT FOUND THEN
          v_current := 0;
          v_prev := decode(repeat('00', 32), 'hex');
        END IF;
        IF v_current <> v_expected THEN
          -- Only on this failure path (a fan-out on a distributed store): a stream kept under another run.
          IF v_current = 0 AND EXISTS (SELECT 1 FROM ariadne_streams s WHERE s.stream_id = v_stream) THEN
            RAISE EXCEPTION 'ariadne_append_batch: stream % belongs to another run than %', v_stream, v_key
              USING ERRCODE = 'AR400';
          END IF;
          status := 'AR412'; detail := v_current::text;
          RETURN NEXT;
          CONTINUE;
        END IF;
        IF v_xid IS NOT NULL AND EXISTS (
          SELECT 1 FROM ariadne_events e
          WHERE e.run_id = v_key AND e.stream_id = v_stream AND e.stream_version = v_current AND e.tx_id > v_xid
        ) THEN
          -- The caller's transaction is out of order as a whole: it must roll back and retry.
          RAISE EXCEPTION 'stream % was appended to by a younger transaction; retry this transaction', v_stream
            USING ERRCODE = '40001', DETAIL = v_stream, HINT = 'append before any other write in the transaction, or retry it';
        END IF;

        -- Each event's columns come from its canonical text, parsed once; the chain is hashed over that text,
        -- after the previous hash as 64 hex digits (the chain's definition; stored as its 32 bytes).
        v_evs := '{}'; v_prevs := '{}'; v_hashes := '{}'; v_foreign := false;
        FOR v_k IN 1..v_count LOOP
          v_canonical := p_events[v_start + v_k - 1];
          -- The first event was parsed above for its run id.
          v_ev := CASE WHEN v_k = 1 THEN v_first ELSE v_canonical::jsonb END;
          IF v_ev->>'streamId' IS DISTINCT FROM v_stream
             OR (v_ev->>'streamVersion')::integer IS DISTINCT FROM v_expected + v_k THEN
            RAISE EXCEPTION 'ariadne_append_batch: event % of the append to % names another stream or version',
              v_k, v_stream USING ERRCODE = 'AR400';
          END IF;
          v_foreign := v_foreign OR v_ev->'metadata'->>'runId' IS DISTINCT FROM v_run;
          v_evs[v_k] := v_ev;
          v_prevs[v_k] := v_prev;
          v_prev := sha256(convert_to(encode(v_prev, 'hex') || v_canonical, 'UTF8'));
          v_hashes[v_k] := v_prev;
        END LOOP;
        IF v_fence IS NOT NULL AND v_foreign THEN
          -- A writer fenced to a run may only append that run's events.
          status := 'AR409'; detail := v_epoch::text;
          RETURN NEXT;
          CONTINUE;
        END IF;

        RETURN QUERY
        INSERT INTO ariadne_events AS e (event_id, stream_id, stream_version, run_id, executor_id, type,
                                         schema_version, data, metadata, recorded_at, prev_hash, hash)
        SELECT (x.ev->>'eventId')::uuid, v_stream, v_expected + x.n::integer, x.ev->'metadata'->>'runId',
               x.ev->'metadata'->>'executorId', x.ev->>'type', (x.ev->>'schemaVersion')::integer,
               x.ev->'data',
               -- What the columns hold is not repeated; a correlation id that is the run id (the default) neither.
               (x.ev->'metadata') - CASE WHEN x.ev->'metadata'->'correlationId' = x.ev->'metadata'->'runId'
                                         THEN '{runId,executorId,correlationId}'::text[] ELSE '{runId,executorId}'::text[] END,
               (x.ev->>'recordedAt')::timestamptz, v_prevs[x.n], v_hashes[x.n]
        FROM unnest(v_evs) WITH ORDINALITY AS x(ev, n)
        ORDER BY x.n
        RETURNING v_i, 'ok'::text, NULL::text, e.global_position, e.stream_version, encode(e.prev_hash, 'hex'), encode(e.hash, 'hex');

        IF v_current = 0 THEN
          INSERT INTO ariadne_streams (run_id, stream_id, version, last_hash) VALUES (v_key, v_stream, v_expected + v_count, v_prev);
        ELSE
          UPDATE ariadne_streams SET version = v_expected + v_count, last_hash = v_prev
          WHERE run_id = v_key AND stream_id = v_stream;
        END IF;
      END LOOP;
    END $$`.execute(db);
}

/**
 * Hex text again, and 0016's function. Rows written compact keep metadata
 * without the ids (their columns still hold them): a down migration past such
 * rows needs the readers of this version.
 */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE ariadne_events
      DROP CONSTRAINT IF EXISTS ariadne_events_hash_bytes,
      ALTER COLUMN prev_hash TYPE text USING encode(prev_hash, 'hex'),
      ALTER COLUMN hash TYPE text USING encode(hash, 'hex')`.execute(db);
  await sql`
    ALTER TABLE ariadne_streams
      DROP CONSTRAINT IF EXISTS ariadne_streams_hash_bytes,
      ALTER COLUMN last_hash TYPE text USING encode(last_hash, 'hex')`.execute(db);
  await sql`DROP TRIGGER ariadne_streams_forward_only ON ariadne_streams`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_streams_forward_only BEFORE INSERT OR UPDATE OR DELETE ON ariadne_streams
    FOR EACH ROW EXECUTE FUNCTION ariadne_guard_stream_head()`.execute(db);
  await runKeyedStreams.upAppendBatch(db);
}
