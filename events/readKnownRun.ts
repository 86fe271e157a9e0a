import { NotFoundError } from "../core/errors.ts";
import type { EventStore } from "./eventStore.ts";
import type { RecordedEvent } from "./types.ts";

/** Every event of a run (`store.readRun`); a run with none is unknown here: a NotFoundError naming it. */
export async function readKnownRun(store: Pick<EventStore, "readRun">, runId: string): Promise<RecordedEvent[]> {
  const events = await store.readRun(runId);
  if (events.length === 0) throw new NotFoundError(`run ${runId} has no events in this store; check the id (ariadne prints it when a run starts)`);
  return events;
}
