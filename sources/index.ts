export type { ArtifactRecord, BlobStore, Sha256Hex, SourceKind, SourceRecord, StoredBlob, StoredBlobs } from "./types.ts";
export { createMemoryBlobStore } from "./memoryBlobStore.ts";
export { isSha256Hex, sha256Hex } from "./sha256.ts";
export { type BlobCheck, verifyBlobs } from "./verifyBlobs.ts";
