export type { ArtifactRecord, BlobStore, Sha256Hex, SourceKind, SourceRecord } from "./types.ts";
export { createDatabaseBlobStore } from "./databaseBlobStore.ts";
export { createMemoryBlobStore } from "./memoryBlobStore.ts";
export { isSha256Hex, sha256Hex } from "./sha256.ts";
export { type BlobCheck, verifyBlobs } from "./verifyBlobs.ts";
