import { createHash } from "node:crypto";
import type { BlobStore, Sha256Hex } from "../../sources/types.ts";

/** A BlobStore in a Map, for tool tests; the database-backed one lives in sources/. */
export class MemoryBlobStore implements BlobStore {
  readonly blobs = new Map<Sha256Hex, Uint8Array>();

  async put(bytes: Uint8Array): Promise<Sha256Hex> {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    // Write-once: a copy, so a caller reusing its buffer cannot change what was stored.
    if (!this.blobs.has(sha256)) this.blobs.set(sha256, new Uint8Array(bytes));
    return sha256;
  }

  async get(sha256: Sha256Hex): Promise<Uint8Array | null> {
    const bytes = this.blobs.get(sha256);
    return bytes ? new Uint8Array(bytes) : null;
  }

  /** A stored blob as UTF-8 text, failing loudly when absent (tests only). */
  async text(sha256: Sha256Hex): Promise<string> {
    const bytes = await this.get(sha256);
    if (!bytes) throw new Error(`no blob ${sha256}`);
    return new TextDecoder().decode(bytes);
  }
}
