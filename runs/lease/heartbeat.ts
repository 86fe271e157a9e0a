import type { Database } from "../../db/openDatabase.ts";
import { renewLease } from "./renewLease.ts";
import type { RunLease } from "./runLease.ts";

/**
 * Renews a lease on a timer (a third of its time to live), not with every
 * step. A failed renewal (the database restarting) is retried on the next
 * tick; a refused one, or no success before the lease would have run out,
 * means another owner may have it: onLost is called once.
 */
export function startHeartbeat(database: Database, lease: RunLease, ttlMs: number, onLost: (why: string) => void): { stop(): void } {
  let lastRenewed = Date.now();
  let lost = false;
  let busy = false;
  const lose = (why: string) => {
    if (lost) return;
    lost = true;
    clearInterval(timer);
    onLost(why);
  };
  const timer = setInterval(async () => {
    if (busy || lost) return;
    busy = true;
    try {
      if (await renewLease(database, lease, ttlMs)) lastRenewed = Date.now();
      else lose(`the lease on run ${lease.runId} (epoch ${lease.epoch}) was taken over`);
    } catch {
      if (Date.now() - lastRenewed >= ttlMs) lose(`the lease on run ${lease.runId} could not be renewed before it ran out`);
    } finally {
      busy = false;
    }
  }, Math.max(50, Math.floor(ttlMs / 3)));
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
