import { promises as fs } from "node:fs";
import path from "node:path";

/** Host uids handed to sandboxed runs: above any account a system creates, below the 2^31 some tools choke on. */
const FIRST = 1_500_000;
const SPAN = 1_000_000;
let next = 0;

/**
 * A uid of its own for one run when this process is root, else null. Root
 * ignores RLIMIT_NPROC, and the limit counts every process of a uid, so a run
 * under a fresh uid is counted alone (this process's pid spreads concurrent
 * hosts apart). It owns no file on the host but its workspace, for the run.
 */
export function sandboxUid(): number | null {
  if (process.getuid?.() !== 0) return null;
  return FIRST + ((process.pid * 7919 + next++) % SPAN);
}

/** Hands a tree to `uid` (links themselves, never followed): the workspace to the run's uid before it, back to the host's after. */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await fs.lchown(dir, uid, gid);
  for (const name of await fs.readdir(dir)) {
    const file = path.join(dir, name);
    const stat = await fs.lstat(file).catch(() => null);
    if (!stat) continue;
    if (stat.isDirectory()) await chownTree(file, uid, gid);
    else await fs.lchown(file, uid, gid).catch(() => {});
  }
}
