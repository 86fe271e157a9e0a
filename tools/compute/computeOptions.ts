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
  /** Address-space limit for Python (ulimit -v), V8 old-space limit for Deno. Default 1024 MB. */
  memoryLimitMb?: number;
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

export const COMPUTE_DEFAULTS = {
  bwrapPath: "/usr/bin/bwrap",
  pythonPath: "/usr/bin/python3",
  timeLimitMs: 60_000,
  memoryLimitMb: 1024,
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
