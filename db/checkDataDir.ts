import { constants } from "node:fs";
import { access, mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../core/errors.ts";

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  EEXIST: "the path exists and is not a directory",
  ENOTDIR: "a part of the path is not a directory",
  ENOENT: "no such file or directory, and it cannot be made there",
  ENOSPC: "no space left on the device",
};

/**
 * Makes sure the embedded store's directory exists and this process may write
 * it and what it holds. PGlite itself reports a read-only store only as "failed
 * to initialize" or a bare errno, naming neither the directory nor the cause.
 */
export async function checkDataDir(dir: string): Promise<void> {
  let path = dir;
  try {
    await makeDirectory(dir);
    await access(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    for (const entry of await readdir(dir)) await access((path = join(dir, entry)), constants.R_OK | constants.W_OK);
  } catch (cause) {
    const code = (cause as { code?: string }).code ?? "";
    const what = path === dir ? "" : ` (${path})`;
    throw new ConfigError(
      `cannot open the embedded store at ${dir}: it is not writable by this process${what}: ${REASONS[code] ?? (cause as Error).message} (${code || "unknown"})`,
      { cause },
    );
  }
}

/**
 * mkdir -p, one level at a time, so the level that cannot be made reports its own
 * cause: node's recursive mkdir spins at full CPU under /proc (e.g. /proc/1/nope)
 * and reports a directory under a read-only mount as ENOENT, not EROFS.
 */
async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    const found = await stat(at).then(
      (s) => s,
      (e: { code?: string }) => {
        if (e.code === "ENOENT") return null;
        throw e;
      },
    );
    if (found) {
      if (!found.isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: at === resolve(dir) ? "EEXIST" : "ENOTDIR" });
      break;
    }
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing) {
    await mkdir(level).catch(async (e: { code?: string }) => {
      if (e.code === "EEXIST" && (await stat(level)).isDirectory()) return; // made meanwhile by another process
      // A directory that cannot be made below a read-only mount is ENOENT to some file systems: ask the mount.
      if (e.code === "ENOENT" || e.code === "EACCES") {
        const parent = dirname(level);
        const readOnly = await access(parent, constants.W_OK).then(
          () => false,
          (a: { code?: string }) => a.code === "EROFS",
        );
        if (readOnly) throw Object.assign(new Error(`${parent} is on a read-only file system`), { code: "EROFS" });
      }
      throw e;
    });
  }
}
