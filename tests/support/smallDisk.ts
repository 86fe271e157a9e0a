import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

/**
 * A small tmpfs of a test's own, to fill up: a full disk cannot be had any other
 * way without touching the machine's real disks. Mounting needs root (or a CI
 * that allows it); where it cannot, `mountSmallDisk` says why, so the test
 * skips saying so rather than failing.
 */
export interface SmallDisk {
  /** The mount point. */
  dir: string;
  /**
   * Writes a filler file until the disk refuses (ENOSPC), and keeps it full: space
   * given back later (a file the server removes) is taken again within milliseconds,
   * as by another process writing to the same disk. Returns the bytes it first took.
   */
  fill(): Promise<number>;
  /** Stops filling and removes the filler: the disk has room again. */
  free(): Promise<void>;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `sizeMb`, owned by `owner` (uid, gid) when given; or returns why it cannot. */
export async function mountSmallDisk(sizeMb: number, owner?: { uid: number; gid: number }): Promise<SmallDisk | string> {
  if (process.platform !== "linux") return `a tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  const dir = mkdtempSync(join(tmpdir(), "ariadne-disk-"));
  try {
    await exec("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0755`, "tmpfs", dir]);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here: ${((e as { stderr?: string }).stderr || (e as Error).message).trim()}`;
  }
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const filler = join(dir, "filler");
  let mounted = true;
  let keeping: Promise<void> | undefined;
  let keep = false;
  /** Appends to the filler until ENOSPC: large chunks first, then small ones, so what is left is less than a page. */
  const topUp = async (): Promise<number> => {
    const file = await open(filler, "a");
    let taken = 0;
    try {
      for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
        const chunk = Buffer.alloc(size);
        for (;;) {
          try {
            taken += (await file.write(chunk)).bytesWritten;
          } catch (e) {
            if ((e as { code?: string }).code === "ENOSPC") break;
            throw e;
          }
        }
      }
    } finally {
      await file.close();
    }
    return taken;
  };
  return {
    dir,
    async fill() {
      const taken = await topUp();
      keep = true;
      keeping = (async () => {
        while (keep) {
          await topUp();
          await new Promise((r) => setTimeout(r, 10));
        }
      })().catch(() => {}); // the disk went away under it (unmounted after a failed test)
      return taken;
    },
    async free() {
      keep = false;
      await keeping;
      await rm(filler, { force: true });
    },
    async unmount() {
      if (!mounted) return;
      mounted = false;
      keep = false;
      await keeping;
      await exec("umount", ["-l", dir]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
