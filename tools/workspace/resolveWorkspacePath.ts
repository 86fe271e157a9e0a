import { constants, promises as fs } from "node:fs";
import path from "node:path";
import type { ToolContext } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";

/** A path checked to lie inside the executor's workspace. */
export interface WorkspacePath {
  /** The workspace folder, symlinks resolved. */
  root: string;
  /** As the model should name it: relative, forward slashes, "." for the root. */
  relative: string;
  /** Symlinks resolved; inside root. */
  absolute: string;
}

/** The executor's workspace folder, created on first use. */
export async function workspaceRoot(ctx: ToolContext): Promise<string> {
  if (!ctx.workspaceDir) {
    throw new ToolError("This call has no workspace: file tools only work inside a run that gives the executor one. Report this as a gap instead of retrying.");
  }
  await fs.mkdir(ctx.workspaceDir, { recursive: true });
  return fs.realpath(ctx.workspaceDir);
}

/**
 * The model's path as a relative path inside the workspace. Refused before any
 * file is touched: absolute paths, `..` segments, NUL and backslashes, so the
 * message can say exactly what to change.
 */
export function checkRelativePath(requested: string): string {
  const p = requested.trim();
  if (p.includes("\0")) throw new ToolError(`The path "${requested}" contains a NUL character; use a plain relative path such as "data/table.csv".`);
  if (p.includes("\\")) throw new ToolError(`The path "${requested}" uses backslashes; use forward slashes, e.g. "data/table.csv".`);
  if (path.posix.isAbsolute(p) || p.startsWith("~")) {
    throw new ToolError(`The path "${requested}" is absolute; paths are relative to your workspace, e.g. "data/table.csv". Files outside it cannot be read or written.`);
  }
  if (p.split("/").includes("..")) {
    throw new ToolError(`The path "${requested}" contains "..": paths may not leave your workspace. Name the file relative to the workspace root, e.g. "data/table.csv".`);
  }
  const normal = path.posix.normalize(p === "" ? "." : p).replace(/\/+$/, "");
  return normal === "" ? "." : normal;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

function outside(relative: string): ToolError {
  return new ToolError(`"${relative}" is a symbolic link that points outside your workspace; it was not followed. Only files inside your workspace can be used.`);
}

/** An existing file or folder in the workspace, every symlink on the way resolved and checked. */
export async function resolveExisting(ctx: ToolContext, requested: string): Promise<WorkspacePath> {
  const relative = checkRelativePath(requested);
  const root = await workspaceRoot(ctx);
  let absolute: string;
  try {
    absolute = await fs.realpath(path.join(root, relative));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError(`There is no "${relative}" in your workspace. Call list_files to see what is there.`);
    }
    throw error;
  }
  if (!inside(root, absolute)) throw outside(relative);
  return { root, relative, absolute };
}

/**
 * Where a file may be written: its folder is created inside the workspace
 * (never through a symlink that leads out), and the file itself is opened
 * with O_NOFOLLOW by the writer, so a link planted at the name is refused too.
 */
export async function resolveForWrite(ctx: ToolContext, requested: string): Promise<WorkspacePath> {
  const relative = checkRelativePath(requested);
  if (relative === ".") throw new ToolError(`"${requested}" names the workspace itself; give a file name, e.g. "notes.md".`);
  const root = await workspaceRoot(ctx);
  let folder = root;
  for (const segment of path.posix.dirname(relative).split("/").filter((s) => s !== ".")) {
    const next = path.join(folder, segment);
    await fs.mkdir(next).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    folder = await fs.realpath(next);
    if (!inside(root, folder)) throw outside(path.posix.dirname(relative));
  }
  return { root, relative, absolute: path.join(folder, path.posix.basename(relative)) };
}

/** Opens for reading without following a final symlink (one swapped in after the check is refused). */
export async function openNoFollow(absolute: string, relative: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw outside(relative);
    throw error;
  }
}
