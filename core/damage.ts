import { DamagedStoreError, isAriadneError } from "./errors.ts";

/**
 * SQLSTATE classes that mean the stored files, not the request, are at fault:
 * XX (internal error: XX001 data_corrupted, XX002 index_corrupted) and 58
 * (system error: I/O). A truncated heap file reads as XX001.
 */
const DAMAGE_CLASSES = ["XX", "58"];

export function isDamage(error: unknown): boolean {
  if (isAriadneError(error)) return false;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return DAMAGE_CLASSES.includes(code.slice(0, 2));
  // PGlite aborts (a WebAssembly trap) on some damaged pages rather than raising an SQLSTATE.
  return error instanceof WebAssembly.RuntimeError;
}

/** Runs a read; a failure that means damaged files becomes one DamagedStoreError naming what was being read. */
export async function readOrDamage<T>(location: string, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isDamage(error)) throw error;
    const e = error as { code?: string; message?: string };
    throw new DamagedStoreError(location, `reading ${what} failed: ${e.message ?? String(error)}${e.code ? ` (${e.code})` : ""}`, { cause: error });
  }
}
