import type { RecordedEvent } from "./types.ts";

/**
 * A run's events (as readRun gives them, in commit order) by stream, each in
 * its stream's version order: two transactions of a batch can commit one
 * stream's versions in the other order of their transaction ids.
 */
export function eventsByStream(events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const streams = new Map<string, RecordedEvent[]>();
  let ordered = true;
  for (const e of events) {
    const stream = streams.get(e.streamId);
    if (!stream) streams.set(e.streamId, [e]);
    else {
      if (stream[stream.length - 1].streamVersion > e.streamVersion) ordered = false;
      stream.push(e);
    }
  }
  if (!ordered) for (const stream of streams.values()) stream.sort((a, b) => a.streamVersion - b.streamVersion);
  return streams;
}
