import { randomUUID } from "node:crypto";
import type { Checkpoint, EventStore, RecordedEvent } from "../../events/index.ts";
import { commitHorizon, deleteCheckpoint, storeCheckpoint } from "../../events/readFromCheckpoint.ts";
import { checkpointAt } from "../../events/readRunEvents.ts";

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
  const start = await commitHorizon(database);
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
      await deleteCheckpoint(database, subscriptionId);
    },
  };
}
