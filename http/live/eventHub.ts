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
  /** Whether the hub reads the log: false while its database is unreachable (it reads again, from where it was, once it answers). */
  health(): { ok: true } | { ok: false; reason: string };
  close(): Promise<void>;
}

/**
 * One store subscription per server, fanned out to the live streams of each
 * run: a hundred followers of a run cost one reader of the log, not a hundred
 * (and one LISTEN connection, not a hundred). It starts at the commit horizon
 * (below the oldest open transaction) under a checkpoint of its own, removed
 * at close.
 */
export async function startEventHub(store: EventStore, options: { pollMs?: number; log?: (fields: Record<string, unknown>) => void } = {}): Promise<EventHub> {
  const log = options.log ?? ((fields) => console.error(JSON.stringify({ time: new Date().toISOString(), ...fields })));
  const { database } = store;
  const subscriptionId = `http-live-${randomUUID()}`;
  const start = await commitHorizon(database);
  await storeCheckpoint(database, subscriptionId, start);

  const listeners = new Map<string, Set<Listener>>();
  let last: number | null = null;
  let stopped: string | undefined;
  const subscription = await store.subscribe({
    subscriptionId,
    pollMs: options.pollMs ?? 250,
    handle(event) {
      last = event.globalPosition;
      for (const listener of listeners.get(event.metadata.runId) ?? []) listener(event);
    },
    onError: (error) => {
      stopped = String((error as Error)?.message ?? error);
      log({ level: "error", msg: "live event hub stopped", error: stopped });
    },
    onConnection(change) {
      // One line when the outage starts and one when it ends, not one a retry.
      if (change.lost && change.attempt === 1) log({ level: "warn", msg: "live event hub lost the database; reading again with backoff", error: String((change.error as Error)?.message ?? change.error) });
      else if (!change.lost) log({ level: "info", msg: "live event hub reads again", downMs: change.downMs });
    },
  });

  return {
    health() {
      if (stopped) return { ok: false, reason: "the live event hub stopped" };
      const h = subscription.health();
      return h.ok ? h : { ok: false, reason: `the live event hub cannot read the database (for ${Math.round(h.sinceMs / 1000)} s)` };
    },
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
