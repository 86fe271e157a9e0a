import type { EventData, EventDataInput, EventType } from "./catalogue.ts";

export interface EventMetadata {
  runId: string;
  executorId: string;
  /** The event (id) that caused this one, if any. */
  causationId?: string | null;
  /** Groups everything done for one request; defaults to the run id. */
  correlationId?: string | null;
}

/**
 * What a caller hands to append. `eventId` is for a writer that folded the
 * event ahead of its append (an executor's held outcome) and so had to name it
 * first; any other event is given a fresh id.
 */
export type NewEvent = {
  [T in EventType]: { type: T; data: EventDataInput<T>; metadata: EventMetadata; eventId?: string };
}[EventType];

/** An event as stored: its payload plus where and when it sits in the log. */
export type RecordedEvent<T extends EventType = EventType> = {
  [K in T]: {
    type: K;
    data: EventData<K>;
    schemaVersion: number;
    eventId: string;
    streamId: string;
    streamVersion: number;
    globalPosition: number;
    recordedAt: Date;
    metadata: Required<EventMetadata>;
    prevHash: string;
    hash: string;
  };
}[T];

export interface AppendResult {
  /** The stream's version after the append; pass it as expectedVersion next time. */
  nextExpectedVersion: number;
  /** Global positions of the appended events, in order. */
  positions: number[];
  events: RecordedEvent[];
}
