import { Buffer } from "node:buffer";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Every regular file under a bundle directory, by path relative to it (with
 * `/`), and anything that is not a regular file or directory (a symlink could
 * point a check at bytes outside the bundle, so it is named, never followed).
 */
export function listBundleFiles(dir: string): { files: string[]; odd: string[] } {
  const files: string[] = [];
  const odd: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(dir, path));
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) files.push(path);
      else odd.push(path);
    }
  };
  walk("");
  return { files, odd };
}

/** A file's bytes, or null when it cannot be read. */
export function readIfPresent(dir: string, path: string): Buffer | null {
  try {
    return readFileSync(join(dir, path));
  } catch {
    return null;
  }
}
