import type { EventDataInput, EventType } from "./catalogue.ts";

/**
 * An event a writer is about to append to an executor's stream, before its
 * metadata (run, executor, causation) is added by whoever appends it. Decisions
 * (actors/decide/) and governance answer with these, so every decision is
 * recorded in the same append as what it decided about.
 */
export type Draft = { [T in EventType]: { type: T; data: EventDataInput<T>; causationId?: string } }[EventType];
