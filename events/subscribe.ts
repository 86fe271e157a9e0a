import { randomUUID } from "node:crypto";
import { isConnectionError } from "../core/connectionLoss.ts";
import { AriadneError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import { checkpointHolder, claimCheckpoint, releaseCheckpoint, storeLeasedCheckpoint } from "./checkpointLease.ts";
import { type Checkpoint, compareCheckpoints, lastCommitted, loadCheckpoint, readFromCheckpoint, storeCheckpoint } from "./readFromCheckpoint.ts";
import type { RecordedEvent } from "./types.ts";

/** The channel the store notifies after each append. */
export const EVENTS_CHANNEL = "ariadne_events";

export interface SubscribeOptions {
  /** Names the stored checkpoint; a new subscription with the same id resumes from it. */
  subscriptionId: string;
  handle: (event: RecordedEvent) => Promise<void> | void;
  batchSize?: number;
  /** Re-read at least this often, for events held back behind a slow transaction. */
  pollMs?: number;
  /**
   * Called once if reading, handling or storing the checkpoint fails for
   * another reason than a lost connection; the subscription then stops. A lost
   * connection is waited out: the subscription reads again with backoff (up to
   * 5 s apart) from its last position, and `health()` says it is behind.
   */
  onError?: (error: unknown) => void;
  /** Called when a read fails for a lost connection (then every retry until one works), and once when reading works again. */
  onConnection?: (change: { lost: true; error: unknown; attempt: number } | { lost: false; downMs: number }) => void;
  /**
   * Share the checkpoint with subscriptions of the same id in other processes:
   * only the holder of its lease (events/checkpointLease.ts) handles events and
   * advances it; the others follow the stored checkpoint and take over when
   * the holder stops or its lease runs out.
   */
  lease?: SubscriptionLease;
}

export interface SubscriptionLease {
  ttlMs: number;
  /** Default: a random id. */
  owner?: string;
  /**
   * Called when this subscription takes the lease (first or again): events
   * before the checkpoint were handled elsewhere, so state kept from an
   * earlier turn is stale.
   */
  onTaken?: (at: Checkpoint) => void;
  /**
   * Whether a holder is known dead (runs/lease/leaseOwner.ts: a process of this
   * host that no longer exists): its lease is taken over at once instead of when
   * it runs out, so the process that resumes a crashed run exports its spans.
   */
  ownerIsDead?: (owner: string) => boolean;
}

export interface Subscription {
  /**
   * Resolves once every event committed before this call has been handled. An
   * event waits behind any older transaction still open (anywhere in the
   * cluster), so this waits for those too. Rejects if the subscription fails
   * or is stopped first.
   */
  caughtUp(): Promise<void>;
  /** Finishes the event in hand, stores the checkpoint and stops. */
  stop(): Promise<void>;
  readonly position: () => Checkpoint;
  /** Whether the last read reached the database; since when it has not, and why. */
  health(): { ok: true } | { ok: false; sinceMs: number; error: unknown };
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

interface Waiter {
  target: Checkpoint;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Pushes every event to `handle`, once each, in log order, resuming from the
 * stored checkpoint. Wakes when the store notifies an append (NOTIFY on
 * PostgreSQL, in-process on PGlite), and polls for the rest: appends made
 * inside a caller's own transaction, or by a Database without notify(). The
 * checkpoint is stored after each batch, so a crash between handling and
 * storing redelivers that batch. With `lease`, one subscription at a time
 * among those sharing the id handles events (see SubscribeOptions.lease).
 */
export async function subscribe(database: Database, options: SubscribeOptions): Promise<Subscription> {
  const batchSize = options.batchSize ?? 200;
  // A holder idles no longer than a third of its lease, so it renews in time.
  const pollMs = Math.min(options.pollMs ?? 500, options.lease ? options.lease.ttlMs / 3 : Infinity);
  let checkpoint = await loadCheckpoint(database, options.subscriptionId);
  const lease = options.lease && { ...options.lease, owner: options.lease.owner ?? randomUUID() };
  // While held: renewed when a third of its time has passed (or with each stored checkpoint).
  let heldSince: number | undefined;
  const holdLease = async (): Promise<boolean> => {
    if (!lease) return true;
    if (heldSince !== undefined && Date.now() - heldSince < lease.ttlMs / 3) return true;
    let at = await claimCheckpoint(database, options.subscriptionId, lease.owner, lease.ttlMs);
    if (!at && lease.ownerIsDead) {
      const holder = await checkpointHolder(database, options.subscriptionId);
      if (holder && lease.ownerIsDead(holder)) at = await claimCheckpoint(database, options.subscriptionId, lease.owner, lease.ttlMs, holder);
    }
    if (!at) {
      heldSince = undefined;
      // Another holder advances it: follow, so caughtUp() resolves as it does.
      const stored = await loadCheckpoint(database, options.subscriptionId);
      if (compareCheckpoints(stored, checkpoint) > 0) checkpoint = stored;
      return false;
    }
    // Newly held, or held again after someone else moved it (this lease had run out unnoticed).
    if (heldSince === undefined || compareCheckpoints(at, checkpoint) !== 0) {
      checkpoint = at;
      lease.onTaken?.(at);
    }
    heldSince = Date.now();
    return true;
  };
  const store = async (at: Checkpoint): Promise<boolean> => {
    if (!lease) return (await storeCheckpoint(database, options.subscriptionId, at), true);
    if (await storeLeasedCheckpoint(database, options.subscriptionId, lease.owner, at, lease.ttlMs)) return ((heldSince = Date.now()), true);
    // Lost (its time ran out mid-batch): the new holder redoes this batch from the stored checkpoint.
    heldSince = undefined;
    return false;
  };
  let stopped = false;
  let failure: { error: unknown } | undefined;
  let waiters: Waiter[] = [];
  // A wake-up that arrives while a read is in flight must not be lost: the flag
  // is cleared when a read starts and checked before going idle.
  let woken = false;
  let interruptIdle: (() => void) | undefined;
  const wake = () => {
    woken = true;
    interruptIdle?.();
  };
  const settleWaiters = () => {
    waiters = waiters.filter((w) => {
      if (failure) w.reject(failure.error);
      else if (compareCheckpoints(checkpoint, w.target) >= 0) w.resolve();
      else if (stopped) w.reject(new AriadneError("SUBSCRIPTION_STOPPED", 409, `subscription ${options.subscriptionId} stopped before catching up`));
      else return true;
      return false;
    });
  };

  /** Reads and handles one batch; true when it was full (more may be waiting). Nothing while another holds the lease. */
  const step = async (): Promise<boolean> => {
    if (!(await holdLease())) return false;
    const batch = await readFromCheckpoint(database, checkpoint, batchSize);
    let handled = 0;
    try {
      for (const event of batch.events) {
        if (stopped) break;
        await options.handle(event);
        handled++;
      }
    } finally {
      if (handled > 0) {
        const at = batch.checkpoints[handled - 1];
        // Unleased, the position in hand is this subscription's own: handled is handled, even if storing it
        // fails for a lost connection (the reread after it starts here: no event twice). Leased, the stored
        // checkpoint decides who handles what next.
        if (!lease) checkpoint = at;
        if (await store(at)) checkpoint = at;
      }
    }
    return batch.events.length === batchSize;
  };

  const unlisten = await database.listen(EVENTS_CHANNEL, wake);
  let down: { since: number; error: unknown; attempt: number } | undefined;
  const loop = (async () => {
    while (!stopped) {
      woken = false;
      let full: boolean;
      let idleMs = pollMs;
      try {
        full = await step();
        if (down) {
          const downMs = Date.now() - down.since;
          down = undefined;
          options.onConnection?.({ lost: false, downMs });
        }
      } catch (error) {
        if (isConnectionError(error) && !stopped) {
          // Waited out: read again from the position in hand once the database answers.
          down = { since: down?.since ?? Date.now(), error, attempt: (down?.attempt ?? 0) + 1 };
          options.onConnection?.({ lost: true, error, attempt: down.attempt });
          heldSince = undefined;
          full = false;
          idleMs = Math.min(FIRST_RETRY_MS * 2 ** (down.attempt - 1), LAST_RETRY_MS);
          woken = false;
        } else {
          failure = { error };
          stopped = true;
          options.onError?.(error);
          break;
        }
      }
      settleWaiters();
      if (full || woken || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, idleMs);
        function done() {
          clearTimeout(timer);
          interruptIdle = undefined;
          resolve();
        }
        interruptIdle = done;
      });
    }
    settleWaiters();
  })();

  return {
    async caughtUp() {
      if (failure) throw failure.error;
      const target = await lastCommitted(database);
      if (!target || compareCheckpoints(checkpoint, target) >= 0) return;
      const reached = new Promise<void>((resolve, reject) => waiters.push({ target, resolve, reject }));
      settleWaiters();
      wake();
      return reached;
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
      await unlisten();
      // Given up so the next exporter takes over at once; if that fails (the store is gone), the lease runs out instead.
      if (lease && heldSince !== undefined) await releaseCheckpoint(database, options.subscriptionId, lease.owner).catch(() => {});
    },
    position: () => checkpoint,
    health: () => (down ? { ok: false, sinceMs: Date.now() - down.since, error: down.error } : { ok: true }),
  };
}
