import type { ColumnType } from "kysely";

/**
 * The blob table as the blob store sees it (migration 0010). Declared here, not
 * in db/, so sources/ depends on nothing of the store it serves; db/schema.ts
 * includes it in the whole schema.
 */
export interface SourceBlobsTable {
  sha256: string;
  bytes: Uint8Array;
  size: number;
  created_at: ColumnType<Date, string | undefined, never>;
}

export interface BlobSchema {
  ariadne_source_blobs: SourceBlobsTable;
}
