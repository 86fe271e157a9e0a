import { randomId, systemClock } from "../core/clock.ts";
import { ConcurrencyError } from "../core/errors.ts";
import { prepareAppend } from "../events/appendToStream.ts";
import { createMemoryBlobStore } from "../sources/memoryBlobStore.ts";
import { type EventStore, GENESIS_HASH, type RecordedEvent, chainHash } from "../events/index.ts";

/**
 * An event store with no database, for the bench only: it does the client-side
 * work of an append (prepareAppend: validation and canonical JSON) plus the
 * hash chain the database would compute, and keeps streams in memory. Running the scenario on it measures the
 * runtime's own CPU per turn, the ceiling no database can raise.
 */
export function createMemoryStore(): EventStore {
  const streams = new Map<string, RecordedEvent[]>();
  let position = 0;
  const unsupported = () => Promise.reject(new Error("the bench memory store only appends and reads streams"));
  return {
    database: undefined as never,
    blobs: createMemoryBlobStore(),
    async append(streamId, expectedVersion, events) {
      const prepared = prepareAppend({ clock: systemClock, newId: randomId }, streamId, expectedVersion, events);
      const stream = streams.get(streamId) ?? [];
      if (stream.length !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, stream.length);
      let prevHash = stream.at(-1)?.hash ?? GENESIS_HASH;
      const recorded = prepared.events.map(({ fields, canonical }) => {
        const hash = chainHash(prevHash, canonical);
        const event = { ...fields, recordedAt: prepared.recordedAt, globalPosition: ++position, prevHash, hash } as RecordedEvent;
        prevHash = hash;
        return event;
      });
      await Promise.resolve();
      if ((streams.get(streamId)?.length ?? 0) !== expectedVersion) throw new ConcurrencyError(streamId, expectedVersion, stream.length);
      streams.set(streamId, stream);
      stream.push(...recorded);
      return { nextExpectedVersion: expectedVersion + recorded.length, positions: recorded.map((e) => e.globalPosition), events: recorded };
    },
    readStream: async (streamId) => [...(streams.get(streamId) ?? [])],
    streamVersion: async (streamId) => streams.get(streamId)?.length ?? 0,
    readAll: unsupported,
    readRun: unsupported,
    readRuns: unsupported,
    subscribe: unsupported,
    verify: unsupported,
    withFence() {
      throw new Error("the bench memory store has no leases to fence with");
    },
  };
}
