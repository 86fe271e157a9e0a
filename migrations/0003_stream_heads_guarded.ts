import { type Kysely, sql } from "kysely";

/**
 * Stream heads are guarded like the events. A head row is what a deleted tail
 * is noticed against, so rewinding it (or deleting it with its stream) hid the
 * deletion from verify with nothing more than UPDATE on ariadne_streams. Now:
 *
 * - a head may only point at a stored event of its stream, carrying that
 *   event's hash (so it cannot be rewritten to a forged hash);
 * - an update may only move it forward (so it cannot be rewound) and never to
 *   another stream;
 * - DELETE and TRUNCATE are refused.
 *
 * The append function inserts its events before it moves the head, in the same
 * statement sequence, so its own updates pass these checks unchanged; the
 * function itself is not redefined here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION ariadne_guard_stream_head() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' OR TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'ariadne_streams heads only move forward: % refused', TG_OP USING ERRCODE = 'AR403';
      END IF;
      IF TG_OP = 'UPDATE' AND (NEW.stream_id <> OLD.stream_id OR NEW.version < OLD.version
                               OR (NEW.version = OLD.version AND NEW.last_hash <> OLD.last_hash)) THEN
        RAISE EXCEPTION 'ariadne_streams head of % may not move from version % to %', OLD.stream_id, OLD.version, NEW.version
          USING ERRCODE = 'AR403';
      END IF;
      IF NOT EXISTS (SELECT 1 FROM ariadne_events e
                     WHERE e.stream_id = NEW.stream_id AND e.stream_version = NEW.version AND e.hash = NEW.last_hash) THEN
        RAISE EXCEPTION 'ariadne_streams head of % must name a stored event: no version % with that hash', NEW.stream_id, NEW.version
          USING ERRCODE = 'AR403';
      END IF;
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_streams_forward_only BEFORE INSERT OR UPDATE OR DELETE ON ariadne_streams
    FOR EACH ROW EXECUTE FUNCTION ariadne_guard_stream_head()`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_streams_no_truncate BEFORE TRUNCATE ON ariadne_streams
    FOR EACH STATEMENT EXECUTE FUNCTION ariadne_guard_stream_head()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS ariadne_streams_no_truncate ON ariadne_streams`.execute(db);
  await sql`DROP TRIGGER IF EXISTS ariadne_streams_forward_only ON ariadne_streams`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_guard_stream_head()`.execute(db);
}
