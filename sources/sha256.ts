import { createHash } from "node:crypto";
import type { Sha256Hex } from "./types.ts";

/** Lowercase hex sha256 of bytes or of a string's UTF-8 encoding. */
export function sha256Hex(bytes: Uint8Array | string): Sha256Hex {
  return createHash("sha256").update(bytes).digest("hex");
}

export const isSha256Hex = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);
