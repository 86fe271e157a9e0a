import type { Database } from "../db/openDatabase.ts";
import { type Checkpoint, loadCheckpoint, readFromCheckpoint, storeCheckpoint } from "./readFromCheckpoint.ts";
import type { RecordedEvent } from "./types.ts";

export const EVENTS_CHANNEL = "ariadne_events";

export interface SubscribeOptions {
  /** Names the stored checkpoint; a new subscription with the same id resumes from it. */
  subscriptionId: string;
  handle: (event: RecordedEvent) => Promise<void> | void;
  batchSize?: number;
  /** Re-read at least this often, for events held back behind a slow transaction. */
  pollMs?: number;
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Resolves once everything committed before this call has been handled. */
  caughtUp(): Promise<void>;
  /** Finishes the event in hand, stores the checkpoint and stops. */
  stop(): Promise<void>;
  readonly position: () => Checkpoint;
}

/**
 * Pushes every event to `handle`, once each, in log order, resuming from the
 * stored checkpoint. Wakes on NOTIFY (PostgreSQL) or the in-process notify
 * (PGlite), and polls as a fallback.
 */
export async function subscribe(database: Database, options: SubscribeOptions): Promise<Subscription> {
  const batchSize = options.batchSize ?? 200;
  let checkpoint = await loadCheckpoint(database, options.subscriptionId);
  let stopped = false;
  let wake: () => void = () => {};
  let idleWaiters: (() => void)[] = [];

  const unlisten = await database.listen(EVENTS_CHANNEL, () => wake());
  const loop = (async () => {
    while (!stopped) {
      let batch;
      try {
        batch = await readFromCheckpoint(database, checkpoint, batchSize);
        let handled = 0;
        try {
          for (const event of batch.events) {
            if (stopped) break;
            await options.handle(event);
            handled++;
          }
        } finally {
          if (handled > 0) {
            checkpoint = batch.checkpoints[handled - 1];
            await storeCheckpoint(database, options.subscriptionId, checkpoint);
          }
        }
      } catch (error) {
        options.onError?.(error);
        stopped = true;
        break;
      }
      if (batch.events.length === batchSize) continue;
      const waiters = idleWaiters;
      idleWaiters = [];
      waiters.forEach((w) => w());
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 500);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    idleWaiters.forEach((w) => w());
  })();

  return {
    caughtUp() {
      // A read that starts after this call sees everything committed before it.
      return new Promise<void>((resolve) => {
        let firstIdle = true;
        const waiter = () => {
          if (firstIdle && !stopped) {
            firstIdle = false;
            idleWaiters.push(waiter);
            wake();
          } else resolve();
        };
        idleWaiters.push(waiter);
        wake();
      });
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
      await unlisten();
    },
    position: () => checkpoint,
  };
}
