import { constants } from "node:fs";
import { access, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  EEXIST: "the path exists and is not a directory",
  ENOTDIR: "a part of the path is not a directory",
};

/**
 * Makes sure the embedded store's directory exists and this process may write
 * it and what it holds. PGlite itself reports a read-only store only as "failed
 * to initialize" or a bare errno, naming neither the directory nor the cause.
 */
export async function checkDataDir(dir: string): Promise<void> {
  let path = dir;
  try {
    await mkdir(dir, { recursive: true });
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
