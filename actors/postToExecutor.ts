import { type Draft, type EventStore, type NewEvent, type RecordedEvent, appendWithRetry, executorStreamId, isFinalEvent } from "../events/index.ts";

export type PostResult = { ok: true; events: RecordedEvent[] } | { ok: false; reason: "not_found" | "final"; message: string };

/**
 * Puts facts in an executor's inbox from outside it (a cancel request, a
 * reminder, a budget decision, a review): appended at the stream's current
 * version, re-read and retried when the executor (or anyone) appended first.
 * Refuses once the executor is final: nothing may follow its last word.
 * The executor folds the facts at its next step (see runner.ts).
 */
export async function postToExecutor(
  store: EventStore,
  executorId: string,
  drafts: readonly Draft[],
  options: { maxAttempts?: number } = {},
): Promise<PostResult> {
  const streamId = executorStreamId(executorId);
  let refused: PostResult | null = null;
  const appended = await appendWithRetry(
    store,
    streamId,
    async () => {
      const version = await store.streamVersion(streamId);
      if (version === 0) return ((refused = { ok: false, reason: "not_found", message: `no executor ${executorId} in the log` }), null);
      const [last] = await store.readStream(streamId, { fromVersion: version, limit: 1 });
      if (isFinalEvent(last)) {
        return ((refused = { ok: false, reason: "final", message: `executor ${executorId} is already ${last.type}; nothing more can reach it` }), null);
      }
      const events = drafts.map(
        (d): NewEvent =>
          ({ type: d.type, data: d.data, metadata: { runId: last.metadata.runId, executorId, causationId: d.causationId ?? null } }) as NewEvent,
      );
      return { expectedVersion: version, events };
    },
    options,
  );
  return appended ? { ok: true, events: appended.events } : refused!;
}
