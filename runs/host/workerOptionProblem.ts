/**
 * The shortest lease a worker accepts. Below it the heartbeat (a third of the
 * lease) cannot keep up with a busy database, and workers take each other's
 * runs in a loop (with 0: 91 takeovers in 12 s, nothing finished).
 */
export const MIN_LEASE_MS = 1_000;

/** Lease time to live for runs a process hosts when ARIADNE_LEASE_MS does not say (cli/config.ts). */
export const DEFAULT_LEASE_MS = 15_000;

/** What is wrong with a worker's lease and concurrency, named as given (`--lease-ms`, `ARIADNE_LEASE_MS`); null when nothing. */
export function workerOptionProblem(o: { ttlMs?: number; concurrency?: number }, names = { ttlMs: "lease", concurrency: "concurrency" }): string | null {
  if (o.ttlMs !== undefined && !(o.ttlMs >= MIN_LEASE_MS)) return `${names.ttlMs} must be at least ${MIN_LEASE_MS} ms (got ${o.ttlMs})`;
  if (o.concurrency !== undefined && !(Number.isInteger(o.concurrency) && o.concurrency >= 1)) return `${names.concurrency} must be at least 1 (got ${o.concurrency})`;
  return null;
}
