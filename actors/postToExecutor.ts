import { isConcurrencyError } from "../core/errors.ts";
import type { EventStore, NewEvent, RecordedEvent } from "../events/index.ts";
import type { Draft } from "./decide/draft.ts";
import { streamIdOf } from "./executorState.ts";

export type PostResult = { ok: true; events: RecordedEvent[] } | { ok: false; reason: "not_found" | "final"; message: string };

const FINAL = new Set(["settled", "cancelled", "failed"]);

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
  const streamId = streamIdOf(executorId);
  const maxAttempts = options.maxAttempts ?? 50;
  for (let attempt = 1; ; attempt++) {
    const version = await store.streamVersion(streamId);
    if (version === 0) return { ok: false, reason: "not_found", message: `no executor ${executorId} in the log` };
    const [last] = await store.readStream(streamId, { fromVersion: version, limit: 1 });
    if (FINAL.has(last.type)) return { ok: false, reason: "final", message: `executor ${executorId} is already ${last.type}; nothing more can reach it` };
    const events = drafts.map(
      (d): NewEvent =>
        ({ type: d.type, data: d.data, metadata: { runId: last.metadata.runId, executorId, causationId: d.causationId ?? null } }) as NewEvent,
    );
    try {
      return { ok: true, events: (await store.append(streamId, version, events)).events };
    } catch (error) {
      if (!isConcurrencyError(error) || attempt >= maxAttempts) throw error;
    }
  }
}
