/**
 * Sources: every byte a tool reads from outside the run (a fetched page, a PDF,
 * a data file, a search result list) and every artifact it writes is kept once,
 * content-addressed by sha256, so a claim can be followed to the exact bytes
 * behind it. The log records a SourceRecord per source in the tool's outcome;
 * the bytes live in a BlobStore (PostgreSQL table or a folder beside PGlite's data).
 */

/** Lowercase hex sha256 of the stored bytes. */
export type Sha256Hex = string;

/** Content-addressed, write-once storage of raw bytes. */
export interface BlobStore {
  /** Stores the bytes under their sha256 unless already stored, and returns the hash. A stored blob is never rewritten. */
  put(bytes: Uint8Array): Promise<Sha256Hex>;
  /** The stored bytes, or null when no blob has this hash. */
  get(sha256: Sha256Hex): Promise<Uint8Array | null>;
}

/** A stored blob as a verifier reads it back: its key, its bytes and the size recorded with them. */
export interface StoredBlob {
  sha256: Sha256Hex;
  bytes: Uint8Array;
  size: number;
}

/** Read access to a blob table for re-hashing (db/sourceBlobs.ts); a few blobs at a time, since blobs can be large. */
export interface StoredBlobs {
  /** Every stored hash, in order. */
  hashes(): Promise<Sha256Hex[]>;
  /** The stored blobs among these hashes; absent ones are left out. */
  read(hashes: Sha256Hex[]): Promise<StoredBlob[]>;
}

export type SourceKind = "web_page" | "search_results" | "document" | "data" | "workspace_file";

/** What a tool read, as the log records it in `tool_completed.data.sources`. */
export interface SourceRecord {
  kind: SourceKind;
  /** The URL as asked (web), or the document's locator (`blob:<sha256>`, `workspace:<path>`, a file URL). */
  url: string;
  /** After normalisation (scheme and host case, default port, fragment, tracking parameters, trailing slash). */
  normalizedUrl?: string;
  /** After redirects. */
  finalUrl?: string;
  status?: number;
  contentType: string;
  /** ISO 8601, from the injectable clock. */
  fetchedAt: string;
  /** sha256 of the raw bytes, stored as a blob. */
  rawSha256: Sha256Hex;
  /** sha256 of the extracted text the model was shown (stored as a blob too): quotes are checked against it. */
  textSha256: Sha256Hex;
  /** Size of the raw bytes. */
  bytes: number;
}

/** A file a tool produced and published from an executor's workspace; its bytes are a blob. */
export interface ArtifactRecord {
  id: string;
  path: string;
  sha256: Sha256Hex;
  bytes: number;
}
