import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import type { Database } from "../db/openDatabase.ts";
import { appendToStream } from "./appendToStream.ts";
import { type VerifyResult, verifyChain } from "./hashChain.ts";
import { type Page, readAll, readRun } from "./readAll.ts";
import { readStream, streamVersion } from "./readStream.ts";
import { type SubscribeOptions, type Subscription, subscribe } from "./subscribe.ts";
import type { AppendResult, NewEvent, RecordedEvent } from "./types.ts";

export interface EventStore {
  readonly database: Database;
  append(streamId: string, expectedVersion: number, events: readonly NewEvent[]): Promise<AppendResult>;
  readStream(streamId: string, options?: { fromVersion?: number; limit?: number }): Promise<RecordedEvent[]>;
  streamVersion(streamId: string): Promise<number>;
  readAll(options?: { after?: number; limit?: number }): Promise<Page>;
  readRun(runId: string): Promise<RecordedEvent[]>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Recomputes a stream's hash chain and names the first event that does not match. */
  verify(streamId: string): Promise<VerifyResult>;
}

/**
 * The event store over an open database (PostgreSQL or PGlite). Time and ids
 * are injected so tests and replays can pin them.
 */
export function createEventStore(database: Database, options: { clock?: Clock; newId?: IdGenerator } = {}): EventStore {
  const deps = { database, clock: options.clock ?? systemClock, newId: options.newId ?? randomId };
  return {
    database,
    append: (streamId, expectedVersion, events) => appendToStream(deps, streamId, expectedVersion, events),
    readStream: (streamId, opts) => readStream(database, streamId, opts),
    streamVersion: (streamId) => streamVersion(database, streamId),
    readAll: (opts) => readAll(database, opts),
    readRun: (runId) => readRun(database, runId),
    subscribe: (opts) => subscribe(database, opts),
    verify: async (streamId) => verifyChain(streamId, await readStream(database, streamId)),
  };
}
