import { promises as fs, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { SANDBOX_WORKSPACE } from "./sandboxArgs.ts";

export interface SandboxWatch {
  /** The sandbox's process tree: RSS summed over every process, stopped past this many bytes. */
  memoryBytes: number;
  /** The workspace on the host, and how many bytes its files may grow by during the run. */
  workspace: string;
  workspaceBytes: number;
  /** The workspace's bytes before the run (bytesUnder), taken before it started. */
  workspaceBase: number;
}

export interface WatchReport {
  /** What the watch stopped the run for, if it did. */
  stoppedBy: "memory" | "workspace" | null;
  peakRssBytes: number;
  peakProcesses: number;
  /** Bytes the workspace's files grew by, at the last look. */
  workspaceGrowth: number;
}

const PAGE = 4096;

/** Every process under `root` (by parent links in /proc), with its resident bytes. Synchronous: a few hundred tiny reads cost a tenth of what as many promises do. */
function tree(root: number): { pids: number[]; rss: number } {
  const parents = new Map<number, number[]>();
  const rssOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // ended between the listing and the read
    }
    // The command name may hold spaces and parentheses: fields are read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    rssOf.set(Number(name), Number(fields[21]) * PAGE);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  const pids: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    if (!rssOf.has(pid)) continue;
    pids.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return { pids, rss: pids.reduce((sum, pid) => sum + (rssOf.get(pid) ?? 0), 0) };
}

/**
 * What the processes hold open that no RSS and no file listing shows: memfds
 * (anonymous files in memory, counted by no process's RSS until mapped) and
 * workspace files deleted while open (their blocks stay on the disk, with no
 * name for bytesUnder to find). Each file once, however many descriptors name it.
 */
function heldOpen(pids: readonly number[]): { memfdBytes: number; deletedWorkspaceBytes: number } {
  const seen = new Set<string>();
  const held = { memfdBytes: 0, deletedWorkspaceBytes: 0 };
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // ended, or not ours to read
    }
    for (const fd of fds) {
      try {
        // The target as the process sees it, inside its mount namespace: "/memfd:name (deleted)", "/workspace/x (deleted)".
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const memfd = target.startsWith("/memfd:");
        const deleted = !memfd && target.startsWith(`${SANDBOX_WORKSPACE}/`) && target.endsWith(" (deleted)");
        if (!memfd && !deleted) continue;
        const stat = statSync(`/proc/${pid}/fd/${fd}`);
        const key = `${stat.dev}:${stat.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (memfd) held.memfdBytes += stat.size;
        else held.deletedWorkspaceBytes += stat.size;
      } catch {
        // closed between the listing and the read
      }
    }
  }
  return held;
}

/** The bytes of every regular file under `dir` (links not followed). */
export async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
    if (stat?.isDirectory()) total += await bytesUnder(path.join(dir, name));
    else if (stat?.isFile()) total += stat.size;
  }
  return total;
}

/**
 * Watches a running sandbox from the host, every `intervalMs`: the summed RSS
 * of its whole process tree (what no per-process limit bounds: many processes,
 * or Deno's ArrayBuffers, which V8's heap limit does not count) plus the memfds
 * it holds, and the growth of the workspace, files deleted while open included
 * (RLIMIT_FSIZE bounds one file, not many). Past either limit
 * it calls `stop` once. Reading /proc costs a few milliseconds a look.
 */
export function watchSandbox(rootPid: number, limits: SandboxWatch, stop: () => void, intervalMs = 100): { done(): Promise<WatchReport> } {
  const report: WatchReport = { stoppedBy: null, peakRssBytes: 0, peakProcesses: 0, workspaceGrowth: 0 };
  const base = limits.workspaceBase;
  let looking: Promise<void> = Promise.resolve();
  let ended = false;
  const look = async () => {
    const { pids, rss: resident } = tree(rootPid);
    const held = heldOpen(pids);
    const rss = resident + held.memfdBytes;
    report.peakRssBytes = Math.max(report.peakRssBytes, rss);
    report.peakProcesses = Math.max(report.peakProcesses, pids.length);
    report.workspaceGrowth = (await bytesUnder(limits.workspace)) - base + held.deletedWorkspaceBytes;
    if (report.stoppedBy || ended) return;
    if (rss > limits.memoryBytes) report.stoppedBy = "memory";
    else if (report.workspaceGrowth > limits.workspaceBytes) report.stoppedBy = "workspace";
    if (report.stoppedBy) stop();
  };
  looking = look();
  const timer = setInterval(() => {
    looking = looking.then(look).catch(() => {});
  }, intervalMs);
  return {
    async done() {
      clearInterval(timer);
      await looking.catch(() => {});
      ended = true;
      // One last look at the workspace: a writer faster than the interval is still counted.
      report.workspaceGrowth = (await bytesUnder(limits.workspace)) - base;
      if (!report.stoppedBy && report.workspaceGrowth > limits.workspaceBytes) report.stoppedBy = "workspace";
      return report;
    },
  };
}
