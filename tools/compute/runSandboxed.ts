import { spawn } from "node:child_process";
import { openMemoryCgroup } from "./memoryCgroup.ts";
import { type SandboxWatch, type WatchReport, watchSandbox } from "./watchSandbox.ts";

export interface CapturedStream {
  /** What was kept: at most the cap, decoded as UTF-8. */
  text: string;
  /** Everything the process wrote to the stream. */
  bytes: number;
  truncated: boolean;
}

export interface SandboxOutcome {
  exitCode: number | null;
  /** The signal that ended the process, e.g. SIGKILL. */
  signal: string | null;
  timedOut: boolean;
  /** The call was cancelled (ctx.signal) and the process killed. */
  aborted: boolean;
  durationMs: number;
  stdout: CapturedStream;
  stderr: CapturedStream;
  /** The process could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
  /** What the watch over memory and the workspace saw, and whether it stopped the run. */
  watch?: WatchReport;
}

function capture(cap: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    push(chunk: Buffer) {
      total += chunk.length;
      if (kept < cap) {
        const part = chunk.subarray(0, cap - kept);
        chunks.push(part);
        kept += part.length;
      }
    },
    done(): CapturedStream {
      return { text: Buffer.concat(chunks).toString("utf8"), bytes: total, truncated: total > kept };
    },
  };
}

/**
 * Runs argv in a process group of its own with an empty environment, keeping at
 * most `outputCapBytes` of each stream; past `timeLimitMs` (or on abort, or when
 * the watch finds the tree's memory or the workspace's growth past its limit)
 * the whole group is killed with SIGKILL. A watched run gets a memory cgroup of
 * its own where the host allows one (see memoryCgroup.ts), so the kernel holds
 * its memory to the limit; the cgroup is removed when the run has ended.
 */
export function runSandboxed(argv: string[], opts: { timeLimitMs: number; outputCapBytes: number; signal?: AbortSignal; watch?: SandboxWatch; memoryCgroup?: boolean }): Promise<SandboxOutcome> {
  const started = performance.now();
  const out = capture(opts.outputCapBytes);
  const err = capture(opts.outputCapBytes);
  const cgroup = opts.watch && opts.memoryCgroup !== false ? openMemoryCgroup(opts.watch.memoryBytes) : null;
  const command = cgroup ? cgroup.enter(argv) : argv;
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: ["ignore", "pipe", "pipe"], env: {} });
    let timedOut = false;
    let aborted = false;
    let settled = false;
    // Once Node has reaped the child its pid, and so its process group's id, may be another process's: never killed then.
    const reaped = () => child.exitCode !== null || child.signalCode !== null;
    const killGroup = () => {
      if (reaped()) return;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeLimitMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const watch = opts.watch && child.pid ? watchSandbox(child.pid, opts.watch, killGroup, { alive: () => !reaped(), cgroup }) : null;
    const finish = async (exitCode: number | null, signal: string | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      const watched = await watch?.done();
      await cgroup?.close();
      resolve({
        ...(watched ? { watch: watched } : {}),
        exitCode,
        signal,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        stdout: out.done(),
        stderr: err.done(),
        ...(spawnError ? { spawnError } : {}),
      });
    };
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", (error: NodeJS.ErrnoException) => void finish(null, null, `${error.code ?? "error"}: ${error.message}`));
    child.on("close", (code, signal) => void finish(code, signal));
    if (opts.signal?.aborted) onAbort();
  });
}
