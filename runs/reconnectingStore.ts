import canonicalize from "canonicalize";
import { isConcurrencyError } from "../core/errors.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { validateEvents } from "../events/validateEvents.ts";

const CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08006", "ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT"]);

/** A lost or refused connection (the server restarting, a terminated backend), as opposed to an answer. */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: string; message?: string; cause?: unknown };
  if (err?.code && CONNECTION_CODES.has(err.code)) return true;
  if (/Connection terminated|not queryable|cannot reach PostgreSQL|terminating connection|not currently accepting connections|the database system is (starting up|shutting down)/i.test(err?.message ?? "")) {
    return true;
  }
  return err?.cause !== undefined && err.cause !== e && isConnectionError(err.cause);
}

/**
 * A store that rides out a database restart: reads and appends that fail for
 * a lost connection are retried with backoff, for up to `maxWaitMs`. An append
 * is retried under the same expected version, so it is never doubled: if the
 * lost call had in fact committed, the retry's version conflict is answered
 * by reading the stream's tail and, when it holds exactly these events,
 * returning them as this append's result.
 */
export function reconnectingStore(inner: EventStore, options: { maxWaitMs?: number; onRetry?: (what: string, e: unknown) => void } = {}): EventStore {
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const retrying = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + maxWaitMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 3_000)) {
      try {
        return await call();
      } catch (e) {
        if (!isConnectionError(e) || Date.now() + delay > deadline) throw e;
        options.onRetry?.(what, e);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  return {
    ...inner,
    readStream: (streamId, o) => retrying(`read ${streamId}`, () => inner.readStream(streamId, o)),
    streamVersion: (streamId) => retrying(`version of ${streamId}`, () => inner.streamVersion(streamId)),
    readRun: (runId) => retrying(`read run ${runId}`, () => inner.readRun(runId)),
    async append(streamId, expectedVersion, events) {
      let lostOne = false;
      return retrying(`append to ${streamId}`, async () => {
        try {
          return await inner.append(streamId, expectedVersion, events);
        } catch (e) {
          if (isConnectionError(e)) lostOne = true;
          else if (lostOne && isConcurrencyError(e)) {
            const tail = await inner.readStream(streamId, { fromVersion: expectedVersion + 1, limit: events.length });
            if (sameEvents(tail, events)) {
              return { nextExpectedVersion: expectedVersion + tail.length, positions: tail.map((t) => t.globalPosition), events: tail };
            }
          }
          throw e;
        }
      });
    },
    withFence: (fence) => reconnectingStore(inner.withFence(fence), options),
  };
}

/** The stored events are these (type, payload, run, executor, causation): a commit whose reply was lost. */
function sameEvents(stored: RecordedEvent[], events: Parameters<EventStore["append"]>[2]): boolean {
  const ours = validateEvents(events);
  return (
    stored.length === ours.length &&
    stored.every(
      (s, i) =>
        s.type === ours[i].type &&
        canonicalize(s.data) === canonicalize(ours[i].data) &&
        s.metadata.executorId === ours[i].metadata.executorId &&
        s.metadata.runId === ours[i].metadata.runId &&
        s.metadata.causationId === ours[i].metadata.causationId,
    )
  );
}
