import { constants, promises as fs } from "node:fs";
import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { resolveForWrite, type WorkspacePath } from "./resolveWorkspacePath.ts";

/** Writes (replaces) a workspace file; a symlink at the name is refused, not followed. */
export async function writeWorkspaceFile(ctx: ToolContext, requested: string, bytes: Uint8Array): Promise<WorkspacePath> {
  const file = await resolveForWrite(ctx, requested);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file.absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ToolError(`"${file.relative}" is a symbolic link; it was not followed. Write to another name.`);
    if (code === "EISDIR") throw new ToolError(`"${file.relative}" is a folder; give a file name inside it, e.g. "${file.relative}/notes.md".`);
    throw error;
  }
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  return file;
}
