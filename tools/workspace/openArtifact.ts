import type { BlobStore, Sha256Hex } from "../../sources/types.ts";
import { ToolError } from "../toolErrors.ts";

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * A published artifact's (or any stored blob's) bytes by sha256: how a parent
 * opens what a Child produced without reaching into the Child's workspace.
 */
export async function openArtifact(blobs: BlobStore, sha256: Sha256Hex): Promise<Uint8Array> {
  const hash = sha256.trim().toLowerCase();
  if (!SHA256.test(hash)) throw new ToolError(`"${sha256}" is not a sha256: expected 64 hex characters, as in an artifact's or source's sha256.`);
  const bytes = await blobs.get(hash);
  if (!bytes) {
    throw new ToolError(`No stored blob has sha256 ${hash}. Copy the sha256 exactly from a handoff's artifacts or a tool result's sources.`);
  }
  return bytes;
}
