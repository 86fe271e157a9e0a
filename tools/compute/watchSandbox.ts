import { promises as fs, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

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
  /** Looks at the tree's memory while its root was the run's, and walks of the workspace finished. */
  looks: number;
  walks: number;
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
 * or Deno's ArrayBuffers, which V8's heap limit does not count) and the growth
 * of the workspace (RLIMIT_FSIZE bounds one file, not many). Past either limit
 * it calls `stop` once. Reading /proc costs a few milliseconds a look.
 *
 * The memory look is synchronous and taken every interval; the workspace walk
 * (asynchronous, behind libuv's thread pool, which under load took 44 s) runs
 * one at a time and a tick that finds one under way skips it: looks chained
 * behind walks once left a whole compute with one look and a queue that drained
 * for up to a minute after the program ended. `alive` says the root is still
 * the run's (not yet reaped): a reaped pid may be another process's, which is
 * neither measured nor stopped.
 */
export function watchSandbox(rootPid: number, limits: SandboxWatch, stop: () => void, intervalMs = 100, alive: () => boolean = () => true): { done(): Promise<WatchReport> } {
  const report: WatchReport = { stoppedBy: null, peakRssBytes: 0, peakProcesses: 0, workspaceGrowth: 0, looks: 0, walks: 0 };
  const base = limits.workspaceBase;
  let ended = false;
  const over = (why: "memory" | "workspace") => {
    if (report.stoppedBy || ended || !alive()) return;
    report.stoppedBy = why;
    stop();
  };
  const lookAtMemory = () => {
    if (ended || !alive()) return;
    const { pids, rss } = tree(rootPid);
    report.looks++;
    report.peakRssBytes = Math.max(report.peakRssBytes, rss);
    report.peakProcesses = Math.max(report.peakProcesses, pids.length);
    if (rss > limits.memoryBytes) over("memory");
  };
  const walk = async () => {
    report.workspaceGrowth = (await bytesUnder(limits.workspace)) - base;
    report.walks++;
    if (report.workspaceGrowth > limits.workspaceBytes) over("workspace");
  };
  let walking: Promise<void> | null = null;
  const tick = () => {
    lookAtMemory();
    walking ??= walk()
      .catch(() => {})
      .finally(() => (walking = null));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async done() {
      clearInterval(timer);
      ended = true;
      await walking;
      // One last look at the workspace: a writer faster than the interval is still counted.
      report.workspaceGrowth = (await bytesUnder(limits.workspace)) - base;
      if (!report.stoppedBy && report.workspaceGrowth > limits.workspaceBytes) report.stoppedBy = "workspace";
      return report;
    },
  };
}
