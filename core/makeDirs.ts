import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { AriadneError } from "./errors.ts";

export interface MakeDirsFs {
  mkdir(path: string, mode?: number): void;
  exists(path: string): boolean;
}

const realFs: MakeDirsFs = {
  mkdir: (path, mode) => mkdirSync(path, { mode }),
  exists: (path) => {
    try {
      statSync(path);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * `mkdir -p`, one level at a time: Node's `mkdirSync(path, { recursive: true })`
 * loops forever at 100% CPU on a path under /proc (every level answers ENOENT).
 * Here the first level that cannot be made is an error naming it and why:
 * EROFS as a read-only file system, ENOTDIR as a file in the way.
 */
export function makeDirs(path: string, options: { mode?: number } & Partial<MakeDirsFs> = {}): void {
  const fs: MakeDirsFs = { mkdir: options.mkdir ?? realFs.mkdir, exists: options.exists ?? realFs.exists };
  const missing: string[] = [];
  for (let at = resolve(path); !fs.exists(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const dir of missing) {
    try {
      fs.mkdir(dir, options.mode);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "EEXIST") continue;
      const why =
        code === "EROFS" ? `${dir} is on a read-only file system`
        : code === "ENOTDIR" ? `${dirname(dir)} is not a directory`
        : code === "EACCES" || code === "EPERM" ? `permission denied`
        : (e as Error).message;
      throw Object.assign(new AriadneError("CANNOT_WRITE", 500, `cannot create the directory ${dir}: ${why}${code ? ` (${code})` : ""}`, { cause: e }), { code });
    }
  }
}
