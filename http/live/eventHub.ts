import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Checkpoint, EventStore, RecordedEvent } from "../../events/index.ts";
import { storeCheckpoint } from "../../events/readFromCheckpoint.ts";
import { checkpointAt } from "./readRunEvents.ts";

export type Listener = (event: RecordedEvent) => void;

export interface Attachment {
  /**
   * Every event up to this checkpoint (inclusive) was handled before the
   * listener was attached; every later one reaches the listener.
   */
  horizon: () => Promise<Checkpoint>;
  detach(): void;
}

export interface EventHub {
  attach(runId: string, listener: Listener): Attachment;
  close(): Promise<void>;
}

/** Past any real position: (tx, MAX) sorts after every event of that transaction. */
const END_OF_TX = Number.MAX_SAFE_INTEGER;

/**
 * One store subscription per server, fanned out to the live streams of each
 * run: a hundred followers of a run cost one reader of the log, not a hundred
 * (and one LISTEN connection, not a hundred). It starts at the commit horizon
 * (below the oldest open transaction) under a checkpoint of its own, removed
 * at close.
 */
export async function startEventHub(store: EventStore, options: { pollMs?: number } = {}): Promise<EventHub> {
  const { database } = store;
  const subscriptionId = `http-live-${randomUUID()}`;
  const xmin = await sql<{ xmin: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`.execute(database.db);
  const start: Checkpoint = { txId: (BigInt(xmin.rows[0].xmin) - 1n).toString(), position: END_OF_TX };
  await storeCheckpoint(database, subscriptionId, start);

  const listeners = new Map<string, Set<Listener>>();
  let last: number | null = null;
  const subscription = await store.subscribe({
    subscriptionId,
    pollMs: options.pollMs ?? 250,
    handle(event) {
      last = event.globalPosition;
      for (const listener of listeners.get(event.metadata.runId) ?? []) listener(event);
    },
    onError: (error) => console.error(JSON.stringify({ level: "error", msg: "live event hub stopped", error: String(error) })),
  });

  return {
    attach(runId, listener) {
      // Read synchronously with the registration: nothing can be handled in between.
      const at = last;
      const set = listeners.get(runId) ?? new Set();
      listeners.set(runId, set.add(listener));
      return {
        horizon: async () => (at === null ? start : ((await checkpointAt(database, at)) ?? start)),
        detach() {
          set.delete(listener);
          if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId);
        },
      };
    },
    async close() {
      await subscription.stop();
      await database.db.deleteFrom("ariadne_checkpoints").where("subscription_id", "=", subscriptionId).execute();
    },
  };
}
