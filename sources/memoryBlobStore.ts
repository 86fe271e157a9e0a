import { sha256Hex } from "./sha256.ts";
import type { BlobStore } from "./types.ts";

/** Blobs held in this process only: for `ariadne tools run` and tests that need no database. */
export function createMemoryBlobStore(): BlobStore & { readonly size: number } {
  const blobs = new Map<string, Uint8Array>();
  return {
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      // Write-once, as in the database: the first bytes stored under a hash stay.
      if (!blobs.has(sha256)) blobs.set(sha256, bytes.slice());
      return sha256;
    },
    async get(sha256) {
      return blobs.get(sha256)?.slice() ?? null;
    },
    get size() {
      return blobs.size;
    },
  };
}
