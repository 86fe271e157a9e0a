import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import type { ComputeLanguage } from "./computeOptions.ts";

export interface SandboxPlan {
  bwrapPath: string;
  pythonPath: string;
  denoPath: string | null;
  /** Host folder bound read-write at /workspace. */
  workspace: string;
  /** Host folder bound read-only at /inputs. */
  inputs: string;
  /** The program, relative to the workspace. */
  programPath: string;
  memoryLimitMb: number;
  passEnv: Readonly<Record<string, string>>;
  /** prlimit and setpriv (util-linux), which set the limits below and drop to `uid`. */
  prlimitPath: string;
  setprivPath: string;
  /** Processes (threads count too) the program may have at once: RLIMIT_NPROC. */
  maxProcesses: number;
  /** Open files per process: RLIMIT_NOFILE. */
  maxOpenFiles: number;
  /** The largest file it may write: RLIMIT_FSIZE (the workspace's growth is watched from outside too). */
  maxFileBytes: number;
  /** Size of the private /tmp, a tmpfs (it lives in memory). */
  tmpBytes: number;
  /**
   * The host uid the program runs as, when the host runs as root: RLIMIT_NPROC
   * is ignored for root, and counts per uid, so each run gets a uid of its own
   * (bwrap then runs without a user namespace, which root does not need, and
   * setpriv drops to the uid with no capabilities and no new privileges).
   * Null: the caller is not root; bwrap's user namespace counts the run's
   * processes apart from the caller's.
   */
  uid: number | null;
}

export const SANDBOX_WORKSPACE = "/workspace";
export const SANDBOX_INPUTS = "/inputs";
const DENO_FOLDER_IN_SANDBOX = "/opt/deno";

/**
 * The top-level system folders a program needs, as on the host: on a merged-/usr
 * system /lib, /bin… are symlinks into /usr and are recreated as such; elsewhere
 * they are bound read-only.
 */
function systemFolders(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const dir of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (stat.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  return args;
}

/**
 * bubblewrap: every namespace unshared (no network but a down loopback, no other
 * process visible), nothing of the host's filesystem but /usr, the libraries and
 * the BLAS alternatives read-only; the workspace read-write, the inputs
 * read-only, a private /tmp of a fixed size; an empty environment; a session
 * of its own (no TIOCSTI into the caller's terminal); killed when its parent dies.
 */
function bwrapPrefix(plan: SandboxPlan, env: Record<string, string>): string[] {
  const unshare = plan.uid === null ? ["--unshare-all"] : ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"];
  const args = [plan.bwrapPath, ...unshare, "--die-with-parent", "--new-session", "--clearenv"];
  for (const [name, value] of Object.entries({ ...env, ...plan.passEnv })) args.push("--setenv", name, value);
  args.push(
    ...systemFolders(),
    // bwrap makes a missing parent 0700 (root's): the run's own uid must traverse /etc to the BLAS alternatives.
    "--perms", "0755", "--dir", "/etc",
    "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
    "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
    "--proc", "/proc",
    "--dev", "/dev",
    "--perms", "1777", "--size", String(plan.tmpBytes), "--tmpfs", "/tmp",
    "--bind", plan.workspace, SANDBOX_WORKSPACE,
    "--ro-bind", plan.inputs, SANDBOX_INPUTS,
    "--chdir", SANDBOX_WORKSPACE,
  );
  return args;
}

/**
 * Inside the sandbox, before the program: the per-process limits (prlimit),
 * after dropping to the run's own uid when the host is root (setpriv). The
 * address-space limit is for Python only: V8 reserves far more address space
 * than it uses, so Deno's memory is bounded by the watch over the whole tree.
 */
function limitsPrefix(plan: SandboxPlan, addressSpaceBytes: number | null): string[] {
  const drop = plan.uid === null ? [] : [plan.setprivPath, `--reuid=${plan.uid}`, `--regid=${plan.uid}`, "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"];
  const limits = [`--nproc=${plan.maxProcesses}`, `--nofile=${plan.maxOpenFiles}`, `--fsize=${plan.maxFileBytes}`, ...(addressSpaceBytes === null ? [] : [`--as=${addressSpaceBytes}`])];
  return ["--", ...drop, plan.prlimitPath, ...limits, "--"];
}

const BASE_ENV = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", HOME: "/tmp" };

/** The argv that runs the program in the sandbox. */
export function sandboxArgs(language: ComputeLanguage, plan: SandboxPlan): string[] {
  const program = `${SANDBOX_WORKSPACE}/${plan.programPath}`;
  if (language === "python") {
    // HOME is the private /tmp so caches (matplotlib, pip) do not land in the workspace as outputs.
    // One BLAS thread: results do not depend on the host's cores, and the address-space limit is not spent on thread stacks.
    const env = { ...BASE_ENV, PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1", OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1", MPLBACKEND: "Agg" };
    // RLIMIT_AS applies to python and anything it starts, each on its own; the watch bounds their sum.
    return [...bwrapPrefix(plan, env), ...limitsPrefix(plan, plan.memoryLimitMb * 1024 * 1024), plan.pythonPath, "-s", program];
  }
  if (!plan.denoPath) throw new Error("no deno binary");
  // Deno's own permissions narrow it further, but they do not cover static imports (a
  // JSON import of any file is read without --allow-read): the mount namespace does.
  const env = { ...BASE_ENV, DENO_DIR: "/tmp/deno", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
  // The binary's folder is bound, not the binary: Deno's child_process rewrites the arguments
  // after any argument equal to its own executable's path (it adds -A), which would reach bwrap.
  const denoInSandbox = `${DENO_FOLDER_IN_SANDBOX}/${path.basename(plan.denoPath)}`;
  return [
    ...bwrapPrefix(plan, env).slice(0, -2),
    // bwrap would make /opt 0700 (root's): the run's own uid must reach the binary.
    "--perms", "0755", "--dir", path.dirname(DENO_FOLDER_IN_SANDBOX),
    "--ro-bind", path.dirname(plan.denoPath), DENO_FOLDER_IN_SANDBOX,
    "--chdir", SANDBOX_WORKSPACE,
    ...limitsPrefix(plan, null),
    denoInSandbox, "run", "--no-prompt", "--no-config", "--no-lock", "--no-remote",
    `--allow-read=${SANDBOX_WORKSPACE},${SANDBOX_INPUTS}`,
    `--allow-write=${SANDBOX_WORKSPACE}`,
    `--v8-flags=--max-old-space-size=${plan.memoryLimitMb}`,
    program,
  ];
}
