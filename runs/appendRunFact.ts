import { type EventStore, type NewEvent, appendWithRetry } from "../events/index.ts";
import { runStreamId } from "../events/index.ts";

type RunFact = Extract<NewEvent, { type: "run_submitted" | "run_interrupted" | "run_resumed" | "cancel_requested" | "check_completed" }>;

/**
 * Appends a run-level fact to run-<runId> at the stream's current version.
 * Several writers add facts there (submit, interrupt, seal, check), none deciding from
 * the others', so a version conflict is simply retried.
 */
export async function appendRunFact(
  store: EventStore,
  ids: { runId: string; mainExecutorId: string },
  fact: { type: RunFact["type"]; data: RunFact["data"] },
): Promise<void> {
  const streamId = runStreamId(ids.runId);
  const event = { ...fact, metadata: { runId: ids.runId, executorId: ids.mainExecutorId } } as NewEvent;
  await appendWithRetry(store, streamId, async () => ({ expectedVersion: await store.streamVersion(streamId, ids.runId), events: [event] }), { maxAttempts: 20 });
}
