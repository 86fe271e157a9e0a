import { AriadneError } from "./errors.ts";

/**
 * The one place that says what a full disk is. Like a lost connection, it is
 * the host's condition, never an executor's failure: nothing can be recorded
 * reliably while it lasts, and the run goes on once there is space again.
 *
 * SQLSTATE 53100 (disk_full: "could not extend file …", "could not write to
 * file …": PostgreSQL and PGlite alike), an errno ENOSPC (the file system, a
 * lock file, a workspace), or the C library's words for it in a message that
 * carries no code.
 */
export function isDiskFull(e: unknown, depth = 0): boolean {
  if (e === null || typeof e !== "object" || depth > 5) return false;
  if (e instanceof DiskFullError) return true;
  const err = e as { code?: unknown; message?: unknown; cause?: unknown };
  if (err.code === "53100" || err.code === "ENOSPC" || err.code === "DISK_FULL") return true;
  if (typeof err.message === "string" && /No space left on device/i.test(err.message)) return true;
  return err.cause !== undefined && err.cause !== e && isDiskFull(err.cause, depth + 1);
}

/**
 * The store's disk is full. One line naming where: `no space left on device at
 * <dir or server>: <what could not be done>`.
 */
export class DiskFullError extends AriadneError {
  constructor(
    readonly where: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super("DISK_FULL", 507, `no space left on device at ${where}: ${detail}`, options);
  }
}
