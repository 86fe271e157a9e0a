import { setImmediate } from "node:timers";
import { crashPoint, crashPointArmed } from "../core/crashPoint.ts";
import type { Database } from "../db/openDatabase.ts";
import { type AppendOutcome, type PreparedAppend, sendAppends } from "./appendToStream.ts";
import type { AppendResult } from "./types.ts";

/**
 * Group commit for one database. An append made while no call is running goes
 * at once, alone; appends made while a call runs wait, and the next call takes
 * all of them (up to a cap) in one transaction (see `spillChars` for when a
 * second call may run beside the first). An idle runtime pays no added wait; a busy one, with many
 * executors appending at once, shares commits instead of queuing them on the
 * connection pool one by one. Every append still resolves only after its own
 * commit, with its own result or refusal.
 */
export interface AppendBatcher {
  append(prepared: PreparedAppend): Promise<AppendResult>;
}

export interface BatcherOptions {
  /** Calls to the database at once. */
  maxInFlight?: number;
  /**
   * A call beyond the first starts only when the appends waiting add up to this
   * many characters: small appends are cheaper waiting for one shared commit,
   * big ones (long batches from many writers) are worth a second core.
   */
  spillChars?: number;
  /** Appends in one call. */
  maxAppends?: number;
  /** Characters of canonical JSON in one call. */
  maxChars?: number;
  /**
   * Wait one turn of the event loop before a call, so appends that other
   * executors are about to make join it. For an in-process engine (PGlite),
   * whose calls run on this thread and would otherwise never overlap.
   */
  gather?: boolean;
}

interface Waiting {
  prepared: PreparedAppend;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export function createAppendBatcher(database: Database, options: BatcherOptions = {}): AppendBatcher {
  const maxInFlight = options.maxInFlight ?? 1;
  const maxAppends = options.maxAppends ?? 128;
  const maxChars = options.maxChars ?? 4_000_000;
  const spillChars = options.spillChars ?? 0;
  const queue: Waiting[] = [];
  let inFlight = 0;
  /** Characters of the appends waiting in the queue. */
  let queued = 0;

  const takeBatch = (): Waiting[] => {
    let chars = 0;
    let n = 0;
    // Always at least one, whatever its size.
    while (n < queue.length && n < maxAppends && (n === 0 || chars + queue[n].prepared.size <= maxChars)) {
      chars += queue[n].prepared.size;
      n++;
    }
    queued -= chars;
    return queue.splice(0, n);
  };

  const pump = (): void => {
    while (inFlight < maxInFlight && queue.length > 0 && (inFlight === 0 || queued >= spillChars)) {
      inFlight++;
      if (!options.gather) {
        void send(takeBatch());
        continue;
      }
      // The batch is taken when this turn of the event loop ends, with every append that joined it. (A
      // microtask wait gathers nothing: executors move on timers and I/O.) So a loop that awaits PGlite
      // queries without ever yielding to the event loop holds PGlite appends back, as it does timers.
      setImmediate(() => {
        const batch = takeBatch();
        if (batch.length > 0) void send(batch);
        else inFlight--;
      });
      return;
    }
  };

  const send = async (batch: Waiting[]): Promise<void> => {
    try {
      const prepared = batch.map((w) => w.prepared);
      const outcomes = await (crashPointArmed("during_commit:") ? sendThenCrash(database, prepared) : sendAppends(database, prepared));
      outcomes.forEach((o, i) => (o.ok ? batch[i].resolve(o.result) : batch[i].reject(o.error)));
    } catch (error) {
      for (const w of batch) w.reject(error);
    } finally {
      inFlight--;
      pump();
    }
  };

  return {
    append(prepared) {
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push({ prepared, resolve, reject });
        queued += prepared.size;
        pump();
      });
    },
  };
}

/**
 * The batch's statement in a transaction of its own (BEGIN; the call; COMMIT),
 * on one connection, with the `during_commit:<event type>` points between the
 * statement and the COMMIT: a crash there leaves the transaction open when the
 * process dies, and the server rolls it back as the connection drops. Two
 * round trips more than the plain call (which commits by itself), so a fault
 * test's path only.
 */
async function sendThenCrash(database: Database, appends: readonly PreparedAppend[]): Promise<AppendOutcome[]> {
  return database.db.transaction().execute(async (trx) => {
    const outcomes = await sendAppends({ ...database, db: trx }, appends);
    // Only appends the call accepted are about to commit; a refused one wrote nothing.
    outcomes.forEach((o, i) => {
      if (o.ok) for (const e of appends[i].events) crashPoint(`during_commit:${e.fields.type}`);
    });
    return outcomes;
  });
}

/**
 * PostgreSQL: one call at a time while the appends waiting are small (a turn's
 * appends are cheapest sharing one commit; bench/overhead), a second once 256 KB
 * of them wait (many writers' long batches: bench/append). PGlite: one
 * connection on this thread, so one call, gathering for a turn of the loop.
 */
export function batcherOptionsFor(database: Database): BatcherOptions {
  return database.engine === "postgres" ? { maxInFlight: 2, spillChars: 256_000 } : { maxInFlight: 1, gather: true };
}

const batchers = new WeakMap<Database, AppendBatcher>();

/** The one batcher of a database, shared by every store over it (fenced or not). */
export function batcherFor(database: Database): AppendBatcher {
  let batcher = batchers.get(database);
  if (!batcher) batchers.set(database, (batcher = createAppendBatcher(database, batcherOptionsFor(database))));
  return batcher;
}
