import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A memory cgroup of the sandbox's own, where the host lets us make one (root,
 * or a delegated cgroup v2 subtree): the kernel bounds the run's memory
 * exactly (every page its processes touch, tmpfs and memfds included, counted
 * once however many processes share it), where a watcher over /proc can only
 * see what the tree held at its last look. Every process of the run is in it
 * from its first instruction (`enter` puts the root in before it execs), and
 * its children inherit it.
 */
export interface MemoryCgroup {
  readonly version: 1 | 2;
  readonly dir: string;
  /** argv that enters the cgroup and then execs `argv`: a failure to enter ends the run before any of its code ran. */
  enter(argv: readonly string[]): string[];
  /** Every process in the cgroup now. */
  pids(): number[];
  /** The most the cgroup held at once (the kernel's count: resident pages, tmpfs, memfds, page cache it caused). */
  peakBytes(): number;
  /** How many of its processes the kernel killed for passing the limit. */
  oomKills(): number;
  /** Kills whatever is left in it and removes it. */
  close(): Promise<void>;
}

/** What `enter`'s wrapper prints, and exits 125 with, when the root could not join the cgroup. */
export const ENTER_FAILED = "sandbox: could not join its memory cgroup";

const PREFIX = "ariadne-sandbox-";

const read = (file: string): string => readFileSync(file, "utf8");
const counter = (text: string, name: string): number => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? 0);

/** Where this process's memory cgroup is on the host: the v1 memory hierarchy's, else the v2 unified one's. */
export function ownMemoryCgroup(): { version: 1 | 2; dir: string } | null {
  let cgroups: string;
  let mounts: string;
  try {
    cgroups = read("/proc/self/cgroup");
    mounts = read("/proc/self/mountinfo");
  } catch {
    return null;
  }
  // mountinfo: id parent major:minor root mountpoint options - fstype source superoptions
  const mountOf = (fstype: string, wants: (superOptions: string) => boolean) => {
    for (const line of mounts.split("\n")) {
      const [left, right] = line.split(" - ");
      const [type, , superOptions] = (right ?? "").split(" ");
      const fields = (left ?? "").split(" ");
      if (type === fstype && wants(superOptions ?? "")) return { root: fields[3]!, point: fields[4]! };
    }
    return null;
  };
  const within = (mount: { root: string; point: string }, cgroupPath: string) =>
    path.join(mount.point, mount.root !== "/" && cgroupPath.startsWith(mount.root) ? cgroupPath.slice(mount.root.length) : cgroupPath);
  for (const line of cgroups.split("\n")) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (cgroupPath === undefined) continue;
    if (controllers!.split(",").includes("memory")) {
      const mount = mountOf("cgroup", (o) => o.split(",").includes("memory"));
      if (mount) return { version: 1, dir: within(mount, cgroupPath) };
    }
  }
  const unified = /^0::(.*)$/m.exec(cgroups)?.[1];
  const mount = mountOf("cgroup2", () => true);
  if (unified !== undefined && mount) return { version: 2, dir: within(mount, unified) };
  return null;
}

/**
 * Removes cgroups a crashed host process left behind: only those whose maker is
 * gone (another's may be about to be entered). On every open, not once a
 * process: a long-lived host outlives the workers that share its parent, and
 * one readdir is nothing beside a sandbox's start.
 */
function sweepLeftovers(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const maker = Number(name.slice(PREFIX.length).split("-")[0]);
    if (maker === process.pid || existsSync(`/proc/${maker}`)) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // still holds a process, or another sweep got it first
    }
  }
}

/**
 * Makes a memory cgroup bounded at `limitBytes` (no swap beyond it) under this
 * process's own, or answers null when the host does not let us: not root, a v2
 * subtree not delegated, no memory controller. The caller falls back to the
 * watcher then.
 */
export function openMemoryCgroup(limitBytes: number): MemoryCgroup | null {
  const own = ownMemoryCgroup();
  if (!own) return null;
  sweepLeftovers(own.dir);
  const dir = path.join(own.dir, `${PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    mkdirSync(dir);
  } catch {
    return null;
  }
  const file = (name: string) => path.join(dir, name);
  try {
    if (own.version === 1) {
      writeFileSync(file("memory.limit_in_bytes"), String(limitBytes));
      // Without swap the file is absent; with it, memory plus swap is held to the same bound.
      if (existsSync(file("memory.memsw.limit_in_bytes"))) writeFileSync(file("memory.memsw.limit_in_bytes"), String(limitBytes));
    } else {
      writeFileSync(file("memory.max"), String(limitBytes));
      if (existsSync(file("memory.swap.max"))) writeFileSync(file("memory.swap.max"), "0");
    }
  } catch {
    // A v2 cgroup whose parent does not hand it the memory controller has no memory.max to write.
    try {
      rmdirSync(dir);
    } catch {
      // nothing was in it; a failure here leaves an empty folder the next sweep removes
    }
    return null;
  }
  const procs = file("cgroup.procs");
  const pids = () => {
    try {
      return read(procs).split("\n").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return {
    version: own.version,
    dir,
    enter: (argv) => ["/bin/sh", "-c", `echo $$ > "$0" || { echo "${ENTER_FAILED}" >&2; exit 125; }; exec "$@"`, procs, ...argv],
    pids,
    peakBytes() {
      try {
        if (own.version === 1) return Number(read(file("memory.max_usage_in_bytes")));
        // memory.peak is Linux 5.19 and later; before it, the usage now is the best there is.
        return Number(read(file(existsSync(file("memory.peak")) ? "memory.peak" : "memory.current")));
      } catch {
        return 0;
      }
    },
    oomKills() {
      try {
        return counter(read(file(own.version === 1 ? "memory.oom_control" : "memory.events")), "oom_kill");
      } catch {
        return 0;
      }
    },
    async close() {
      // The run's process group is gone by now; a process that left it (setsid) is still here, and is ended.
      for (let attempt = 0; attempt < 100; attempt++) {
        for (const pid of pids()) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        try {
          rmdirSync(dir);
          return;
        } catch {
          // a killed process is still being torn down: the kernel lets go of it in a moment
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    },
  };
}
