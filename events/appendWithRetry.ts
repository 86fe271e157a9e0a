import { isConcurrencyError } from "../core/errors.ts";
import type { EventStore } from "./eventStore.ts";
import type { AppendResult, NewEvent } from "./types.ts";

/** What to append, and the stream version it was decided at. */
export interface AppendAttempt {
  expectedVersion: number;
  events: readonly NewEvent[];
}

/**
 * Emmett's command handler, the one loop every writer that shares a stream
 * uses: decide what to append from the stream as the writer knows it, append
 * at that version, and on a version conflict (another writer appended first)
 * decide again; `decide` is told which attempt it is, so it can read what the
 * other writer wrote first. `decide` answering null gives up without writing
 * (the result is then null). A conflict past `maxAttempts`, or any other
 * error, is thrown.
 */
export async function appendWithRetry(
  store: Pick<EventStore, "append">,
  streamId: string,
  decide: (attempt: number) => AppendAttempt | null | Promise<AppendAttempt | null>,
  options: { maxAttempts?: number } = {},
): Promise<AppendResult | null> {
  const maxAttempts = options.maxAttempts ?? 50;
  for (let attempt = 1; ; attempt++) {
    const next = await decide(attempt);
    if (!next) return null;
    try {
      return await store.append(streamId, next.expectedVersion, next.events);
    } catch (error) {
      if (!isConcurrencyError(error) || attempt >= maxAttempts) throw error;
    }
  }
}
