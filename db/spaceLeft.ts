import { statfs } from "node:fs/promises";

/** Below this much free space, a store whose writes fail is taken to be on a full disk. */
export const FULL_BELOW_BYTES = 1 << 20;

/** Bytes an unprivileged writer may still use on the file system holding `dir`; null where it cannot be told. */
export async function bytesFree(dir: string): Promise<number | null> {
  try {
    const s = await statfs(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** Whether the file system holding `dir` is (all but) full: PGlite's own failures often do not say so. */
export async function isOutOfSpace(dir: string): Promise<boolean> {
  const free = await bytesFree(dir);
  return free !== null && free < FULL_BELOW_BYTES;
}
