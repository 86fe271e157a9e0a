import type { Database } from "../../db/index.ts";
import { countQueuedRuns } from "../../db/queuedRuns.ts";
import type { Principal } from "../auth/principal.ts";
import { limitReached, rateLimitFields } from "./limitAnswer.ts";

/** Queued runs wait for workers; a full queue is worth retrying once some were taken. */
const QUEUE_RETRY_SECONDS = 30;

/**
 * Admits a submission while the key's and the tenant's queued runs (submitted,
 * not yet taken by a worker) are under their caps, else 429 naming the cap.
 * Counted in the database (ariadne_runs.status and key_id), so every server
 * shares them; submissions of a tenant are admitted one at a time in this
 * process, so a burst here cannot overshoot (one across servers could, by the
 * submissions in flight at once).
 */
export function queueAdmission(database: Database, caps: { perKey: number; perTenant: number }) {
  const tails = new Map<string, Promise<unknown>>();
  return async function admit<T>(p: Principal, submit: () => Promise<T>): Promise<T> {
    const previous = tails.get(p.tenant) ?? Promise.resolve();
    const turn = previous.then(async () => {
      const { byKey, byTenant } = await countQueuedRuns(database, p.tenant, p.keyId);
      const refuse = (what: string, max: number, name: string) =>
        limitReached(`too many queued runs: ${what} (${max}) reached; retry once workers have taken some (after ${QUEUE_RETRY_SECONDS} s)`, QUEUE_RETRY_SECONDS, rateLimitFields(name, max, 0, QUEUE_RETRY_SECONDS));
      if (p.keyId !== null && byKey >= caps.perKey) throw refuse("queued runs per key", caps.perKey, "queued-runs-per-key");
      if (byTenant >= caps.perTenant) throw refuse("queued runs per tenant", caps.perTenant, "queued-runs-per-tenant");
      return submit();
    });
    const tail = turn.catch(() => {});
    tails.set(p.tenant, tail);
    try {
      return await turn;
    } finally {
      if (tails.get(p.tenant) === tail) tails.delete(p.tenant);
    }
  };
}
