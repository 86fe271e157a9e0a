import { promises as fs } from "node:fs";
import path from "node:path";

export interface FileState {
  size: number;
  mtimeMs: number;
  /** A symlink (never followed, never published). */
  link: boolean;
}

/** Every file under `root` (relative paths) with size and mtime, skipping `skip` folders; symlinks noted, not followed. */
export async function snapshotFiles(root: string, skip: readonly string[] = []): Promise<Map<string, FileState>> {
  const files = new Map<string, FileState>();
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of await fs.readdir(dir)) {
      const relative = rel ? `${rel}/${name}` : name;
      if (skip.includes(relative)) continue;
      const stat = await fs.lstat(path.join(dir, name));
      if (stat.isDirectory()) await walk(path.join(dir, name), relative);
      else if (stat.isFile() || stat.isSymbolicLink()) files.set(relative, { size: stat.size, mtimeMs: stat.mtimeMs, link: stat.isSymbolicLink() });
    }
  };
  await walk(root, "");
  return files;
}

/** Files that are new or whose size or mtime changed between two snapshots, in name order. */
export function changedFiles(before: Map<string, FileState>, after: Map<string, FileState>): string[] {
  return [...after.entries()]
    .filter(([p, s]) => {
      const b = before.get(p);
      return !b || b.size !== s.size || b.mtimeMs !== s.mtimeMs || b.link !== s.link;
    })
    .map(([p]) => p)
    .sort();
}
