import { canonicalJson } from "../../core/canonicalJson.ts";
import { isConnectionError, retryOnConnectionLoss } from "../../core/connectionLoss.ts";
import { isConcurrencyError } from "../../core/errors.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import { validateEvents } from "../../events/validateEvents.ts";

/** Connection loss is classified in one place (core/connectionLoss.ts); re-exported for runs/ callers. */
export { isConnectionError };

/**
 * A store that rides out a database restart: reads and appends that fail for
 * a lost connection are retried with backoff, for up to `maxWaitMs` (default
 * 60 s; then DatabaseUnavailableError). An append
 * is retried under the same expected version, so it is never doubled: if the
 * lost call had in fact committed, the retry's version conflict is answered
 * by reading the stream's tail and, when it holds exactly these events,
 * returning them as this append's result.
 */
export function reconnectingStore(inner: EventStore, options: { maxWaitMs?: number; onRetry?: (what: string, e: unknown) => void } = {}): EventStore {
  const retrying = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    retryOnConnectionLoss(what, call, { maxWaitMs: options.maxWaitMs, onRetry: options.onRetry });
  return {
    ...inner,
    readStream: (streamId, o) => retrying(`read ${streamId}`, () => inner.readStream(streamId, o)),
    streamVersion: (streamId, runId) => retrying(`version of ${streamId}`, () => inner.streamVersion(streamId, runId)),
    readRun: (runId) => retrying(`read run ${runId}`, () => inner.readRun(runId)),
    readRuns: (runIds) => retrying(`read ${runIds.length} runs`, () => inner.readRuns(runIds)),
    readAll: (o) => retrying("read the log", () => inner.readAll(o)),
    verify: (streamId) => retrying(`verify ${streamId}`, () => inner.verify(streamId)),
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
        canonicalJson(s.data) === canonicalJson(ours[i].data) &&
        s.metadata.executorId === ours[i].metadata.executorId &&
        s.metadata.runId === ours[i].metadata.runId &&
        s.metadata.causationId === ours[i].metadata.causationId,
    )
  );
}
