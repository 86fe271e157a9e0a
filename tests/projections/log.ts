import type { EventData, EventType, RecordedEvent } from "../../events/index.ts";
import { recorded } from "../actors/fixtures.ts";
import { executorStreamId } from "../../events/index.ts";

/**
 * Builds a run's log in memory for pure tests of the projections: each event
 * gets the next version of its stream and the next global position. `fact`
 * writes a type the catalogue may not hold yet (facts other modules add).
 */
export function memoryLog(runId = "run-pure") {
  const versions = new Map<string, number>();
  const events: RecordedEvent[] = [];
  let position = 0;
  const push = (executorId: string, type: string, data: unknown, streamId: string): RecordedEvent => {
    const version = (versions.get(streamId) ?? 0) + 1;
    versions.set(streamId, version);
    const base = recorded(executorId, version, type as EventType, data as never, ++position);
    const event = { ...base, streamId, eventId: `${streamId}-${version}`, metadata: { ...base.metadata, runId, correlationId: runId } } as RecordedEvent;
    events.push(event);
    return event;
  };
  return {
    events,
    add<T extends EventType>(executorId: string, type: T, data: EventData<T>): RecordedEvent {
      return push(executorId, type, data, executorStreamId(executorId));
    },
    /** An event of any type, in the run-level stream unless `streamId` says otherwise. */
    fact(executorId: string, type: string, data: Record<string, unknown>, streamId = `run-${runId}`): RecordedEvent {
      return push(executorId, type, data, streamId);
    },
  };
}
