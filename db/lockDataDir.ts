import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";

/**
 * The lock file inside a PGlite data directory: the pid of the one process that
 * has it open, and on Linux that process's start time (field 22 of
 * /proc/<pid>/stat), so a pid reused by another process is not taken for the holder.
 */
export const LOCK_FILE = "ariadne.lock";

/** Directories this process holds, so a stale lock that happens to carry our pid is told apart from our own. */
const held = new Set<string>();

/**
 * Takes the data directory for this process, or refuses at once, naming the
 * process that holds it: PGlite is one process, and two on one directory
 * silently corrupt it. The lock file is created with its pid already in it
 * (written aside, then hard-linked into place, which fails if it exists). A
 * lock whose process is gone (SIGKILL, a crash) is taken over, so a crashed
 * holder never leaves the store stuck, and neither does a lock naming a live
 * process that is not its holder (the pid reused, or written by hand): on Linux
 * the holder is recognised by its start time, or, for a lock without one, by
 * being a Node or Deno process. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    const own = `${path}.${process.pid}.${attempt}`;
    writeFileSync(own, `${process.pid}\n${startTimeOf(process.pid) ?? ""}\n`);
    try {
      linkSync(own, path);
      held.add(path);
      const release = () => {
        process.off("exit", release);
        held.delete(path);
        if (readHolder(path) === process.pid) tryUnlink(path);
      };
      process.on("exit", release);
      return release;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw new ConfigError(`cannot lock the embedded store at ${dataDir}: ${(e as Error).message}`, { cause: e });
    } finally {
      tryUnlink(own);
    }
    const holder = readHolder(path);
    if (holder === undefined) continue;
    if (holder !== null && isHolder(path, holder)) {
      const who = holder === process.pid ? `this process (${holder})` : `process ${holder}`;
      throw new ConfigError(
        `the embedded store at ${dataDir} is in use by ${who}; PGlite serves one process at a time: wait for it to finish, or use PostgreSQL (DATABASE_URL) to share a store`,
      );
    }
    takeOverStale(path, holder);
  }
  throw new ConfigError(`cannot lock the embedded store at ${dataDir}: other processes keep taking ${LOCK_FILE}`);
}

/**
 * Moves a dead holder's lock aside (rename is atomic: of two takers, one wins).
 * If what was moved turns out to be a live lock taken meanwhile, it goes back.
 */
function takeOverStale(path: string, stalePid: number | null): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // Someone else moved it first; try again.
  }
  const moved = readHolder(aside);
  if (moved !== stalePid && moved != null && isHolder(path, moved, aside)) {
    try {
      linkSync(aside, path);
    } catch {
      // A third process has locked it since; it holds the store now.
    }
  }
  tryUnlink(aside);
}

/** The pid in a lock file; null if unreadable as a pid, undefined if the file is gone. */
function readHolder(path: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** The start time recorded with the pid in a lock file; null when none (a lock written before it was recorded, or by hand). */
function readStartTime(path: string): string | null {
  try {
    return readFileSync(path, "utf8").split("\n")[1]?.trim() || null;
  } catch {
    return null;
  }
}

/** A process's start time in clock ticks since boot (Linux); null where /proc cannot tell. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so fields are counted after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** What a process was started as (Linux); null where /proc cannot tell. */
function commandOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return null;
  }
}

/**
 * Whether the process `pid` named in the lock at `path` (read from `lockFile`) holds this store: our own
 * pid only if this process took it; another only if it is alive and, where /proc
 * tells, is the process that wrote the lock (same start time) or, for a lock
 * without a start time, a Node or Deno process (what can open a PGlite store).
 */
function isHolder(path: string, pid: number, lockFile = path): boolean {
  if (pid === process.pid) return held.has(path);
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    if ((e as { code?: string }).code !== "EPERM") return false;
  }
  const started = startTimeOf(pid);
  if (started === null) return true; // no /proc (or not ours to read): alive is all that is known
  const recorded = readStartTime(lockFile);
  if (recorded !== null) return recorded === started;
  const command = commandOf(pid);
  return command === null || /\b(node|deno|ariadne)\b/i.test(command);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
