import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { openNoFollow, resolveExisting, type WorkspacePath } from "./resolveWorkspacePath.ts";

/** Larger files are refused rather than held in memory whole. */
export const MAX_WORKSPACE_FILE_BYTES = 50 * 1024 * 1024;

/** A workspace file's bytes, read through the checked path (no symlink out, not a folder). */
export async function readWorkspaceBytes(ctx: ToolContext, requested: string): Promise<{ file: WorkspacePath; bytes: Uint8Array }> {
  const file = await resolveExisting(ctx, requested);
  const handle = await openNoFollow(file.absolute, file.relative);
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new ToolError(`"${file.relative}" is a folder; call list_files with path "${file.relative}" to see its files.`);
    if (!stat.isFile()) throw new ToolError(`"${file.relative}" is not a regular file and cannot be read.`);
    if (stat.size > MAX_WORKSPACE_FILE_BYTES) {
      throw new ToolError(`"${file.relative}" has ${stat.size} bytes, more than the ${MAX_WORKSPACE_FILE_BYTES} a tool reads; split or summarise it with compute first.`);
    }
    return { file, bytes: new Uint8Array(await handle.readFile()) };
  } finally {
    await handle.close();
  }
}
