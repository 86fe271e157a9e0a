import { crashPoint, crashPointArmed } from "../core/crashPoint.ts";
import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import type { Database } from "../db/openDatabase.ts";
import { encodeAppendNotice } from "./appendNotices.ts";
import { batcherFor } from "./appendBatcher.ts";
import { type Fence, prepareAppend } from "./appendToStream.ts";
import type { VerifyResult } from "./hashChain.ts";
import { type Page, readAll, readRun, readRuns } from "./readAll.ts";
import { type StreamReadOptions, readStream, streamVersion } from "./readStream.ts";
import { EVENTS_CHANNEL, type SubscribeOptions, type Subscription, subscribe } from "./subscribe.ts";
import type { AppendResult, NewEvent, RecordedEvent } from "./types.ts";
import { verifyStream } from "./verifyStream.ts";
import { refuseDamagedRun, refuseDamagedStream } from "../db/quarantine.ts";
import { createDatabaseBlobStore } from "../db/sourceBlobs.ts";
import type { BlobStore } from "../sources/types.ts";

export interface EventStore {
  readonly database: Database;
  /**
   * The log's content-addressed bytes (the run's blob table): what tools read and wrote, and what
   * each executor's model was offered at admission (its system prompt and tool specs, its profile).
   */
  readonly blobs: BlobStore;
  append(streamId: string, expectedVersion: number, events: readonly NewEvent[]): Promise<AppendResult>;
  /** With `runId` (a fenced store: its run's), the read names the run, as a store distributed by run needs. */
  readStream(streamId: string, options?: StreamReadOptions): Promise<RecordedEvent[]>;
  streamVersion(streamId: string, runId?: string): Promise<number>;
  readAll(options?: { after?: number; limit?: number }): Promise<Page>;
  readRun(runId: string): Promise<RecordedEvent[]>;
  /** Several runs' events in one query (a listing's page), each in global order; a damaged run among them is refused. */
  readRuns(runIds: readonly string[]): Promise<Map<string, RecordedEvent[]>>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Recomputes a stream's hash chain from the stored rows and names the first
   * event that does not match, even one whose payload no longer parses.
   */
  verify(streamId: string): Promise<VerifyResult>;
  /**
   * The same store with every append fenced to a run's lease epoch, checked in
   * the append's own SQL call: once another owner takes the run, appends throw
   * FencedError and write nothing.
   */
  withFence(fence: Fence): EventStore;
}

/**
 * The event store over an open database (PostgreSQL or PGlite). Time and ids
 * are injected so tests and replays can pin them.
 */
export function createEventStore(
  database: Database,
  options: { clock?: Clock; newId?: IdGenerator; fence?: Fence; blobs?: BlobStore } = {},
): EventStore {
  const deps = { database, clock: options.clock ?? systemClock, newId: options.newId ?? randomId };
  const blobs = options.blobs ?? createDatabaseBlobStore(database.db);
  return {
    database,
    blobs,
    async append(streamId, expectedVersion, events) {
      // Validated here, before it waits for a batch: bad input fails alone and at once.
      const prepared = prepareAppend(deps, streamId, expectedVersion, events, options.fence);
      // A process not armed at these boundaries names no crash point per append (one null check).
      if (crashPointArmed("before_commit:")) for (const e of events) crashPoint(`before_commit:${e.type}`);
      const result = await batcherFor(database).append(prepared);
      // After the commit: a NOTIFY inside it would serialise every append in the cluster. It names
      // the run, stream and version, so a listener routes it without a query (appendNotices.ts).
      database.notify?.(EVENTS_CHANNEL, encodeAppendNotice({ runId: prepared.runId, streamId, version: result.nextExpectedVersion }));
      if (crashPointArmed("after_commit:")) for (const e of events) crashPoint(`after_commit:${e.type}`);
      return result;
    },
    // A fenced store serves one run: its reads name the run (docs/scaling.md).
    readStream: async (streamId, opts) => (refuseDamagedStream(database, streamId), readStream(database, streamId, { ...opts, runId: opts?.runId ?? options.fence?.runId })),
    streamVersion: (streamId, runId) => streamVersion(database, streamId, runId ?? options.fence?.runId),
    readAll: (opts) => readAll(database, opts),
    readRun: async (runId) => (refuseDamagedRun(database, runId), readRun(database, runId)),
    readRuns: async (runIds) => (runIds.forEach((id) => refuseDamagedRun(database, id)), readRuns(database, runIds)),
    subscribe: (opts) => subscribe(database, opts),
    verify: async (streamId) => (refuseDamagedStream(database, streamId), verifyStream(database, streamId)),
    withFence: (fence) => createEventStore(database, { ...options, fence, blobs }),
  };
}
