import type { RecordedEvent } from "../events/index.ts";

/** An event as the API shows it; `position` is the global position, also the SSE id. */
export function renderEvent(e: RecordedEvent) {
  return {
    position: e.globalPosition,
    id: e.eventId,
    type: e.type,
    schemaVersion: e.schemaVersion,
    streamId: e.streamId,
    streamVersion: e.streamVersion,
    executorId: e.metadata.executorId,
    causationId: e.metadata.causationId,
    recordedAt: e.recordedAt.toISOString(),
    data: e.data as unknown,
    prevHash: e.prevHash,
    hash: e.hash,
  };
}
