import { type Kysely, sql } from "kysely";
import * as appendBatch from "./0009_append_batch.ts";
import * as streamHeadsGuarded from "./0003_stream_heads_guarded.ts";

/**
 * Ready to be distributed by run (docs/scaling.md): every statement an append
 * makes names its run, so on PostgreSQL distributed by run_id (Citus) the
 * append, its stream head and its events sit on one node.
 *
 * - Stream heads carry their run (`ariadne_streams.run_id`, filled from the
 *   head's event for existing rows) and are looked up by (run_id, stream_id).
 * - ariadne_append_batch: the same arguments, checks and result as 0009. The
 *   client now sends every append's run in p_runs, fenced or not (a null
 *   epoch: unfenced), the argument a distributed function is routed by; when
 *   null, the first event's metadata runId (every event carries one; an append
 *   is never empty). The head lookup, transaction-order check, head insert and
 *   head update filter by that run. A stream belongs to one run: an append
 *   naming another run than its stream's fails the call (AR400), as an event
 *   naming another stream does (new stream ids are fresh, so it is a caller bug).
 * - The head guard (0003) checks the head's event within its run, and refuses
 *   a head moved to another run.
 *
 * No index is added: on one PostgreSQL the (stream_id, ...) keys still answer
 * these lookups, and every extra index costs each append. A distributed setup
 * replaces the keys with run-led ones (docs/scaling.md, "Migrating to Citus").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_streams ADD COLUMN run_id text`.execute(db);
  // The guard (0003) lets this through: same version and hash, and the head's event exists.
  await sql`
    UPDATE ariadne_streams s SET run_id = e.run_id
    FROM ariadne_events e WHERE e.stream_id = s.stream_id AND e.stream_version = s.version`.execute(db);
  await sql`ALTER TABLE ariadne_streams ALTER COLUMN run_id SET NOT NULL`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION ariadne_guard_stream_head() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' OR TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'ariadne_streams heads only move forward: % refused', TG_OP USING ERRCODE = 'AR403';
      END IF;
      IF TG_OP = 'UPDATE' AND (NEW.stream_id <> OLD.stream_id OR NEW.version < OLD.version
                               OR NEW.run_id IS DISTINCT FROM coalesce(OLD.run_id, NEW.run_id)
                               OR (NEW.version = OLD.version AND NEW.last_hash <> OLD.last_hash)) THEN
        RAISE EXCEPTION 'ariadne_streams head of % may not move from version % to %', OLD.stream_id, OLD.version, NEW.version
          USING ERRCODE = 'AR403';
      END IF;
      IF NOT EXISTS (SELECT 1 FROM ariadne_events e
                     WHERE e.run_id = NEW.run_id AND e.stream_id = NEW.stream_id AND e.stream_version = NEW.version
                       AND e.hash = NEW.last_hash) THEN
        RAISE EXCEPTION 'ariadne_streams head of % must name a stored event: no version % with that hash', NEW.stream_id, NEW.version
          USING ERRCODE = 'AR403';
      END IF;
      RETURN NEW;
    END $$`.execute(db);
  await upAppendBatch(db);
}

/** This migration's ariadne_append_batch (also what 0018's down restores). */
export async function upAppendBatch(db: Kysely<any>): Promise<void> {
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
      v_prev text;
      v_epoch bigint;
      v_canonical text;
      v_ev jsonb;
      v_evs jsonb[];
      v_prevs text[];
      v_hashes text[];
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
          v_prev := repeat('0', 64);
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

        -- Each event's columns come from its canonical text, parsed once; the chain is hashed over that text.
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
          v_prev := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
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
               x.ev->'data', x.ev->'metadata', (x.ev->>'recordedAt')::timestamptz, v_prevs[x.n], v_hashes[x.n]
        FROM unnest(v_evs) WITH ORDINALITY AS x(ev, n)
        ORDER BY x.n
        RETURNING v_i, 'ok'::text, NULL::text, e.global_position, e.stream_version, e.prev_hash, e.hash;

        IF v_current = 0 THEN
          INSERT INTO ariadne_streams (run_id, stream_id, version, last_hash) VALUES (v_key, v_stream, v_expected + v_count, v_prev);
        ELSE
          UPDATE ariadne_streams SET version = v_expected + v_count, last_hash = v_prev
          WHERE run_id = v_key AND stream_id = v_stream;
        END IF;
      END LOOP;
    END $$`.execute(db);
}

/** Restores the append function of 0009 and the head guard of 0003, then drops the column. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS ariadne_append_batch(text[], integer[], text[], bigint[], integer[], text[])`.execute(db);
  await appendBatch.up(db);
  await streamHeadsGuarded.down(db);
  await streamHeadsGuarded.up(db);
  await sql`ALTER TABLE ariadne_streams DROP COLUMN IF EXISTS run_id`.execute(db);
}
