import { createHash } from "node:crypto";
import type { Sha256Hex } from "../../sources/types.ts";

/** Lowercase hex sha256, the same hash a BlobStore files the bytes under. */
export function sha256Hex(bytes: Uint8Array | string): Sha256Hex {
  return createHash("sha256").update(bytes).digest("hex");
}
