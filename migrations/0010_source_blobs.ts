import { type Kysely, sql } from "kysely";

/**
 * Source blobs: every byte a tool read from outside the run (a page, a PDF, a
 * search result list) or wrote as an artifact, kept once under its sha256 so a
 * claim can be followed to the exact bytes behind it. Write-once like the log:
 * a put of stored bytes is a no-op (ON CONFLICT DO NOTHING), and a trigger
 * refuses UPDATE, DELETE and TRUNCATE. `size` is checked against the bytes so a
 * row cannot claim another length; the hash is checked by verify (verifyBlobs),
 * which re-hashes what is stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE ariadne_source_blobs (
      sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      bytes bytea NOT NULL,
      size integer NOT NULL CHECK (size = octet_length(bytes)),
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE FUNCTION ariadne_refuse_blob_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ariadne_source_blobs is write-once: % refused', TG_OP USING ERRCODE = 'AR403';
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_source_blobs_write_once BEFORE UPDATE OR DELETE ON ariadne_source_blobs
    FOR EACH ROW EXECUTE FUNCTION ariadne_refuse_blob_change()`.execute(db);
  await sql`
    CREATE TRIGGER ariadne_source_blobs_no_truncate BEFORE TRUNCATE ON ariadne_source_blobs
    FOR EACH STATEMENT EXECUTE FUNCTION ariadne_refuse_blob_change()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS ariadne_source_blobs`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ariadne_refuse_blob_change()`.execute(db);
}
