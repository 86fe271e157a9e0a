import { isConcurrencyError } from "../core/errors.ts";
import type { EventStore, NewEvent } from "../events/index.ts";
import { runStreamId } from "./runLease.ts";

type RunFact = Extract<NewEvent, { type: "run_submitted" | "run_interrupted" | "cancel_requested" }>;

/**
 * Appends a run-level fact to run-<runId> at the stream's current version.
 * Several writers add facts there (submit, interrupt, seal), none deciding from
 * the others', so a version conflict is simply retried.
 */
export async function appendRunFact(
  store: EventStore,
  ids: { runId: string; mainExecutorId: string },
  fact: { type: RunFact["type"]; data: RunFact["data"] },
): Promise<void> {
  const streamId = runStreamId(ids.runId);
  for (let attempt = 1; ; attempt++) {
    const version = await store.streamVersion(streamId);
    try {
      await store.append(streamId, version, [{ ...fact, metadata: { runId: ids.runId, executorId: ids.mainExecutorId } } as NewEvent]);
      return;
    } catch (e) {
      if (!isConcurrencyError(e) || attempt >= 20) throw e;
    }
  }
}
