import { promises as fs, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import type { MemoryCgroup } from "./memoryCgroup.ts";
import { SANDBOX_WORKSPACE } from "./sandboxArgs.ts";

export interface SandboxWatch {
  /** The sandbox's process tree: RSS summed over every process, stopped past this many bytes. */
  memoryBytes: number;
  /** The workspace on the host, and how many bytes its files may grow by during the run. */
  workspace: string;
  workspaceBytes: number;
  /** The workspace's bytes before the run (bytesUnder), taken before it started. */
  workspaceBase: number;
  /** How many files and folders the run may make in the workspace (inodes: empty files cost no bytes), and how many there were before. */
  workspaceEntries: number;
  workspaceEntriesBase: number;
  /** How many files and folders the run may make in its private /tmp: a tmpfs's size bounds its bytes, not its inodes (kernel memory). */
  tmpEntries: number;
}

export interface WatchReport {
  /** What the watch stopped the run for, if it did. */
  stoppedBy: "memory" | "workspace" | "files" | "tmpFiles" | null;
  peakRssBytes: number;
  peakProcesses: number;
  /** Bytes the workspace's files grew by, at the last look. */
  workspaceGrowth: number;
  /** Files and folders the run made in the workspace, at the last look (counted up to just past the limit). */
  workspaceEntriesMade: number;
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

/**
 * The bytes of every regular file under `dir` and how many entries (files,
 * folders, links) it holds, links not followed. The walk stops once it has
 * counted more than `maxEntries`: a run that made a million empty files costs
 * the watch no more than the limit does.
 */
export async function usageUnder(dir: string, maxEntries = Infinity): Promise<{ bytes: number; entries: number }> {
  const usage = { bytes: 0, entries: 0 };
  const walk = async (at: string): Promise<void> => {
    let names: string[];
    try {
      names = await fs.readdir(at);
    } catch {
      return;
    }
    for (const name of names) {
      if (++usage.entries > maxEntries) return;
      const stat = await fs.lstat(path.join(at, name)).catch(() => null);
      if (stat?.isDirectory()) await walk(path.join(at, name));
      else if (stat?.isFile()) usage.bytes += stat.size;
      if (usage.entries > maxEntries) return;
    }
  };
  await walk(dir);
  return usage;
}

/** The bytes of every regular file under `dir` (links not followed). */
export const bytesUnder = async (dir: string): Promise<number> => (await usageUnder(dir)).bytes;

export interface WatchOptions {
  /** How often the workspace and /tmp are walked (or as long after as the last walk took: a workspace of many files must not keep the host walking it). */
  intervalMs?: number;
  /** How often memory is looked at, apart from the walks: what a tree allocates between two looks passes the limit unseen. */
  memoryIntervalMs?: number;
  /** The root is still the run's (not yet reaped by Node): after that its pid may be another process's, whose tree is not measured. */
  alive?: () => boolean;
  /** The run's own memory cgroup, when the host let us make one: the kernel bounds memory then, and the watch reads its counts. */
  cgroup?: MemoryCgroup | null;
}

/**
 * Watches a running sandbox from the host. Memory: where the run has a memory
 * cgroup the kernel holds it to the limit and the watch stops the whole run
 * once the kernel has killed one of its processes for it; elsewhere the watch
 * sums the RSS of the whole process tree (what no per-process limit bounds:
 * many processes, or Deno's ArrayBuffers, which V8's heap limit does not
 * count) plus the memfds it holds, every `memoryIntervalMs`, and stops it past
 * the limit. The workspace: its growth in bytes, files deleted while open
 * included (RLIMIT_FSIZE bounds one file, not many), and in files and folders
 * made, on a slower walk. Past any limit it calls `stop` once.
 */
export function watchSandbox(rootPid: number, limits: SandboxWatch, stop: () => void, options: WatchOptions = {}): { done(): Promise<WatchReport> } {
  const { intervalMs = 100, memoryIntervalMs = 20, alive = () => true, cgroup = null } = options;
  const report: WatchReport = { stoppedBy: null, peakRssBytes: 0, peakProcesses: 0, workspaceGrowth: 0, workspaceEntriesMade: 0 };
  const base = limits.workspaceBase;
  const entriesBase = limits.workspaceEntriesBase;
  let ended = false;
  /** done() was called: the run is over, nothing is left to stop, no look is scheduled. */
  let finishing = false;
  const stopFor = (why: NonNullable<WatchReport["stoppedBy"]>) => {
    if (report.stoppedBy || ended) return;
    report.stoppedBy = why;
    if (!finishing) stop();
  };
  /** The run's processes: the cgroup's, which no reaped pid can stand in for, or the root's tree while the root is the run's. */
  const processes = (): { pids: number[]; rss: number } => (cgroup ? { pids: cgroup.pids(), rss: 0 } : alive() ? tree(rootPid) : { pids: [], rss: 0 });
  /** What the last memory look saw: the slower walk reuses it rather than list /proc and every fd again. */
  let seen: { pids: number[]; held: ReturnType<typeof heldOpen> | null } = { pids: [], held: null };
  const memoryLook = () => {
    const { pids, rss: resident } = processes();
    report.peakProcesses = Math.max(report.peakProcesses, pids.length);
    if (cgroup) {
      seen = { pids, held: null };
      report.peakRssBytes = Math.max(report.peakRssBytes, cgroup.peakBytes());
      if (cgroup.oomKills() > 0) stopFor("memory");
      return;
    }
    const held = heldOpen(pids);
    seen = { pids, held };
    const rss = resident + held.memfdBytes;
    report.peakRssBytes = Math.max(report.peakRssBytes, rss);
    if (rss > limits.memoryBytes) stopFor("memory");
  };
  const workspaceLook = async (deleted: number) => {
    const usage = await usageUnder(limits.workspace, entriesBase + limits.workspaceEntries);
    report.workspaceGrowth = usage.bytes - base + deleted;
    report.workspaceEntriesMade = usage.entries - entriesBase;
    if (report.workspaceGrowth > limits.workspaceBytes) stopFor("workspace");
    else if (report.workspaceEntriesMade > limits.workspaceEntries) stopFor("files");
  };
  const filesLook = async () => {
    // At most one memory interval old: the memory loop looks far more often than this one.
    const { pids, held } = seen;
    if (pids.length === 0) return workspaceLook(0);
    // The sandbox's /tmp, seen through a process inside its mount namespace (the root pid is bwrap's outer process).
    const inside = pids.find((pid) => pid !== rootPid);
    if (inside !== undefined && (await usageUnder(`/proc/${inside}/root/tmp`, limits.tmpEntries)).entries > limits.tmpEntries) stopFor("tmpFiles");
    await workspaceLook((held ?? heldOpen(pids)).deletedWorkspaceBytes);
  };
  /** Looks again and again, each `every` after the last began or as long after as it took, until done(). */
  const repeat = (look: () => void | Promise<void>, every: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = async (): Promise<void> => {
      const started = performance.now();
      await Promise.resolve().then(look).catch(() => {});
      if (!finishing) timer = setTimeout(() => void (state.looking = next()), Math.max(every, performance.now() - started));
    };
    const state = { looking: next(), cancel: () => clearTimeout(timer) };
    return state;
  };
  const loops = [repeat(memoryLook, memoryIntervalMs), repeat(filesLook, intervalMs)];
  return {
    async done() {
      finishing = true;
      for (const loop of loops) loop.cancel();
      await Promise.all(loops.map((loop) => loop.looking));
      // A process the kernel killed for memory just before the run ended still ended it for memory.
      if (cgroup) memoryLook();
      // One last look at the workspace: a writer faster than the looks is still counted.
      await workspaceLook(0);
      ended = true;
      return report;
    },
  };
}
