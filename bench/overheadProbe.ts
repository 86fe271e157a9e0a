import type { EventStore, RecordedEvent } from "../events/index.ts";

/**
 * Watches a run from the outside: times every store.append (validation,
 * hashing, the SQL round trip and commit), the fold that follows it (append
 * resolved to the runtime's onEvent for the batch's last event), and counts
 * events. With `sizes`, it also measures each event's JSON size; that costs a
 * stringify per event, so it is only switched on for a calibration run.
 */
export class RunProbe {
  appends = 0;
  events = 0;
  appendMs = 0;
  foldMs = 0;
  readonly eventsByType: Record<string, number> = {};
  /** The runs whose events were seen, to count their commits in the database afterwards. */
  readonly runIds = new Set<string>();
  turnEventBytes = 0;
  eventBytes = 0;
  /** The first turn event seen, as a payload for the append floor. */
  sampleTurn: RecordedEvent<"turn"> | undefined;
  private readonly batchEnds = new Map<string, number>();

  constructor(private readonly sizes = false) {}

  /** The same store, with append timed. */
  wrap(store: EventStore): EventStore {
    return {
      ...store,
      append: async (streamId, expectedVersion, events) => {
        const started = performance.now();
        const result = await store.append(streamId, expectedVersion, events);
        const ended = performance.now();
        this.appends++;
        this.appendMs += ended - started;
        const last = result.events.at(-1);
        if (last) this.batchEnds.set(last.eventId, ended);
        return result;
      },
    };
  }

  readonly onEvent = (event: RecordedEvent): void => {
    this.events++;
    this.runIds.add(event.metadata.runId);
    this.eventsByType[event.type] = (this.eventsByType[event.type] ?? 0) + 1;
    const appended = this.batchEnds.get(event.eventId);
    if (appended !== undefined) {
      this.foldMs += performance.now() - appended;
      this.batchEnds.delete(event.eventId);
    }
    if (event.type === "turn") this.sampleTurn ??= event;
    if (this.sizes) {
      const bytes = Buffer.byteLength(JSON.stringify(event));
      this.eventBytes += bytes;
      if (event.type === "turn") this.turnEventBytes += bytes;
    }
  };
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
