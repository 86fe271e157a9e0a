/** How compute runs code; every path and limit is the caller's choice (nothing is read from the environment here). */
export interface ComputeOptions {
  /** bubblewrap, the sandbox for both languages. Default /usr/bin/bwrap. */
  bwrapPath?: string;
  /** The system Python with numpy/pandas/statsmodels. Default /usr/bin/python3. */
  pythonPath?: string;
  /** The deno binary; default the npm package's (see findDenoBinary). */
  denoPath?: string;
  /** Wall-clock limit of one run; the whole process group is killed when it passes. Default 60 s. */
  timeLimitMs?: number;
  /**
   * Memory of the whole run: held by the kernel in a memory cgroup of the run's
   * own where the host allows one (memoryCgroup), else its process tree's summed
   * RSS is watched from the host and the run killed past it; also each Python
   * process's address space (RLIMIT_AS) and Deno's V8 heap. Default 1024 MB.
   */
  memoryLimitMb?: number;
  /**
   * Give each run a memory cgroup of its own, bounded at memoryLimitMb, where the
   * host lets us make one (root on cgroup v1, a delegated v2 subtree); where it
   * does not, the watch bounds memory alone, to what the tree allocates between
   * two looks past the limit. Default true.
   */
  memoryCgroup?: boolean;
  /** Processes (and threads) the program may have at once (RLIMIT_NPROC, under a uid of its own when the host is root). Default 64. */
  maxProcesses?: number;
  /** Bytes the workspace may grow by in one run (watched; no file larger: RLIMIT_FSIZE); past it the run is killed and what it wrote removed. Default 256 MB. */
  maxWorkspaceWriteMb?: number;
  /** Files and folders one run may make in the workspace (each an inode on the host's disk, and a cost to every look of the watch); past it the run is killed and what it made removed. Default 10,000. */
  maxWorkspaceFiles?: number;
  /** Size of the private /tmp, a tmpfs held in memory. Default 256 MB. */
  maxTmpMb?: number;
  /** Files and folders one run may make in the private /tmp: each inode is kernel memory its size does not count. Default 10,000. */
  maxTmpFiles?: number;
  /** Open files per process (RLIMIT_NOFILE). Default 256. */
  maxOpenFiles?: number;
  /** util-linux's prlimit and setpriv, which set those limits. Defaults /usr/bin/prlimit, /usr/bin/setpriv. */
  prlimitPath?: string;
  setprivPath?: string;
  /** Bytes of stdout and of stderr kept and shown; the rest is counted and dropped. Default 20,000. */
  outputCapBytes?: number;
  /**
   * Extra variables for the sandboxed process, e.g. OPENBLAS_CORETYPE and
   * OPENBLAS_L2_SIZE, which some OpenBLAS builds need to compute correctly
   * (see openblasEnv). Nothing else of the host's environment goes in.
   */
  passEnv?: Readonly<Record<string, string>>;
  /** Where inputs are staged for a run (a fresh folder under it, removed after). Default the OS temp dir. */
  scratchDir?: string;
  /** Written files published as artifacts per run, and the largest published. Defaults 20 and 10 MB. */
  maxPublishedFiles?: number;
  maxPublishedBytes?: number;
}

export type ComputeLanguage = "python" | "typescript" | "javascript";

/** The limits a host sets for every compute call (cli/config.ts: ARIADNE_COMPUTE_*); each unset one keeps its default. */
export type ComputeLimits = Pick<ComputeOptions, "timeLimitMs" | "memoryLimitMb" | "maxProcesses" | "maxWorkspaceWriteMb" | "maxWorkspaceFiles" | "maxTmpMb" | "maxTmpFiles" | "maxOpenFiles">;

export const COMPUTE_DEFAULTS = {
  bwrapPath: "/usr/bin/bwrap",
  pythonPath: "/usr/bin/python3",
  timeLimitMs: 60_000,
  memoryLimitMb: 1024,
  memoryCgroup: true,
  maxProcesses: 64,
  maxWorkspaceWriteMb: 256,
  maxWorkspaceFiles: 10_000,
  maxTmpMb: 256,
  maxTmpFiles: 10_000,
  maxOpenFiles: 256,
  prlimitPath: "/usr/bin/prlimit",
  setprivPath: "/usr/bin/setpriv",
  outputCapBytes: 20_000,
  maxPublishedFiles: 20,
  maxPublishedBytes: 10 * 1024 * 1024,
} as const;

/** The OpenBLAS variables of an environment the caller passes in (cli/config.ts reads the environment; tools never do). */
export function openblasEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]) {
    const value = env[name];
    if (value !== undefined && value !== "") picked[name] = value;
  }
  return picked;
}
