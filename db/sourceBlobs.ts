import { Buffer } from "node:buffer";
import type { Kysely } from "kysely";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import { isSha256Hex, sha256Hex } from "../sources/sha256.ts";
import type { BlobStore, Sha256Hex, StoredBlobs } from "../sources/types.ts";
import type { Schema } from "./schema.ts";

/**
 * The run's blobs in `ariadne_source_blobs` (migration 0010), on PostgreSQL and
 * PGlite alike. A put of bytes already stored does nothing: the row is
 * write-once, so the first bytes under a hash are the ones every reader gets.
 * Both calls are safe to repeat, so a lost connection is retried (then
 * DatabaseUnavailableError, which a tool does not record as its outcome).
 */
export function createDatabaseBlobStore(db: Kysely<Schema>): BlobStore {
  return {
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      await retryOnConnectionLoss(`store blob ${sha256}`, () =>
        db
        .insertInto("ariadne_source_blobs")
        // A Buffer view, not a copy: pg sends Buffers as bytea; PGlite takes any Uint8Array.
        .values({ sha256, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), size: bytes.byteLength })
        .onConflict((oc) => oc.column("sha256").doNothing())
        .execute(),
      );
      return sha256;
    },
    async get(sha256: Sha256Hex) {
      if (!isSha256Hex(sha256)) return null;
      const row = await retryOnConnectionLoss(`read blob ${sha256}`, () =>
        db.selectFrom("ariadne_source_blobs").select("bytes").where("sha256", "=", sha256).executeTakeFirst(),
      );
      return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
    },
  };
}

/** The table read back for sources/verifyBlobs: its hashes, and the stored rows of a batch. */
export function storedBlobs(db: Kysely<Schema>): StoredBlobs {
  return {
    async hashes() {
      const rows = await db.selectFrom("ariadne_source_blobs").select("sha256").orderBy("sha256").execute();
      return rows.map((r) => r.sha256);
    },
    read: (hashes) => db.selectFrom("ariadne_source_blobs").select(["sha256", "bytes", "size"]).where("sha256", "in", hashes).execute(),
  };
}
