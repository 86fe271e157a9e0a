import { promises as fs } from "node:fs";
import path from "node:path";
import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { resolveExisting } from "./resolveWorkspacePath.ts";

export interface WorkspaceEntry {
  path: string;
  type: "file" | "folder" | "symlink";
  bytes?: number;
}

export interface WorkspaceListing {
  path: string;
  entries: WorkspaceEntry[];
  /** More entries exist than were listed. */
  truncated: boolean;
}

/** Every entry under a workspace folder, depth first, in name order; symlinks are shown, never followed. */
export async function listWorkspaceFiles(ctx: ToolContext, requested = ".", limit = 500): Promise<WorkspaceListing> {
  const start = await resolveExisting(ctx, requested);
  if (!(await fs.stat(start.absolute)).isDirectory()) {
    throw new ToolError(`"${start.relative}" is a file, not a folder; call read_file to read it, or list_files without a path to list the workspace.`);
  }
  const entries: WorkspaceEntry[] = [];
  let truncated = false;
  const walk = async (absolute: string, relative: string): Promise<void> => {
    const names = (await fs.readdir(absolute)).sort();
    for (const name of names) {
      if (entries.length >= limit) {
        truncated = true;
        return;
      }
      const rel = relative === "." ? name : `${relative}/${name}`;
      const stat = await fs.lstat(path.join(absolute, name));
      if (stat.isSymbolicLink()) entries.push({ path: rel, type: "symlink" });
      else if (stat.isDirectory()) {
        entries.push({ path: rel, type: "folder" });
        await walk(path.join(absolute, name), rel);
      } else if (stat.isFile()) entries.push({ path: rel, type: "file", bytes: stat.size });
    }
  };
  await walk(start.absolute, start.relative);
  return { path: start.relative, entries, truncated };
}
