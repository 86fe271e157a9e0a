import type { ArtifactRecord, BlobStore } from "../../sources/types.ts";
import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { readWorkspaceBytes } from "./readWorkspaceBytes.ts";
import { sha256Hex } from "./sha256Hex.ts";

export function requireBlobs(ctx: ToolContext, what: string): BlobStore {
  if (!ctx.blobs) throw new ToolError(`${what} needs the run's blob store, and this call has none. Report this as a gap instead of retrying.`);
  return ctx.blobs;
}

/**
 * The same executor, path and bytes always give the same id, so a re-run after
 * a crash reports the artifact the first run did.
 */
export function artifactId(executorId: string, path: string, sha256: string): string {
  return `art-${sha256Hex(`${executorId}\0${path}\0${sha256}`).slice(0, 20)}`;
}

/** Stores bytes as a blob and names them as an artifact of this executor at `path`. */
export async function storeArtifact(ctx: ToolContext, path: string, bytes: Uint8Array): Promise<ArtifactRecord> {
  const sha256 = await requireBlobs(ctx, "Publishing an artifact").put(bytes);
  return { id: artifactId(ctx.executorId, path, sha256), path, sha256, bytes: bytes.byteLength };
}

/** A workspace file published: its bytes become a blob any executor of the run can open by sha256. */
export async function publishArtifact(ctx: ToolContext, requested: string): Promise<ArtifactRecord> {
  const { file, bytes } = await readWorkspaceBytes(ctx, requested);
  return storeArtifact(ctx, file.relative, bytes);
}
