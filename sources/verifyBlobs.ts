import { sha256Hex } from "./sha256.ts";
import type { Sha256Hex, StoredBlobs } from "./types.ts";

export interface BlobCheck {
  /** Blobs read and re-hashed. */
  checked: number;
  /** Asked for but not stored. */
  missing: Sha256Hex[];
  /** Stored, but their bytes no longer hash to their key (or their size disagrees): changed behind the store's back. */
  changed: Sha256Hex[];
}

/** Blobs read per query: a page can be megabytes, so a verify never holds many at once. */
const BATCH = 16;

/**
 * Re-hashes stored blobs: the ones named (a run's sources and artifacts), or
 * every blob when none are named. The key of a blob is the sha256 of its bytes,
 * so a changed blob (possible only with the write-once trigger off) is found.
 */
export async function verifyBlobs(stored: StoredBlobs, hashes?: Iterable<Sha256Hex>): Promise<BlobCheck> {
  const wanted = hashes ? [...new Set(hashes)].sort() : await stored.hashes();
  const result: BlobCheck = { checked: 0, missing: [], changed: [] };
  for (let i = 0; i < wanted.length; i += BATCH) {
    const batch = wanted.slice(i, i + BATCH);
    const rows = await stored.read(batch);
    const found = new Map(rows.map((r) => [r.sha256, r]));
    for (const sha256 of batch) {
      const row = found.get(sha256);
      if (!row) {
        result.missing.push(sha256);
        continue;
      }
      result.checked++;
      if (row.size !== row.bytes.byteLength || sha256Hex(row.bytes) !== sha256) result.changed.push(sha256);
    }
  }
  return result;
}
