import { NotFoundError } from "../../core/errors.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import { type RequestContextOptions, requestContextOf } from "./requestContext.ts";
import { type Transcript, rebuildTranscript } from "./transcript.ts";
import { executorStreamId } from "../../events/index.ts";

/**
 * An executor's full transcript, read from the log and rebuilt with the request
 * context it was run with, each request checked against its recorded digest.
 * Reads only: no runtime, no runner, no model.
 */
export async function readTranscript(store: EventStore, executorId: string, options: RequestContextOptions): Promise<Transcript> {
  const events = await store.readStream(executorStreamId(executorId));
  if (events.length === 0) throw new NotFoundError(`no executor ${executorId} in the log`);
  const ctx = await requestContextOf(events[0] as RecordedEvent<"executor_admitted">, store.blobs, options);
  return rebuildTranscript(events, ctx);
}
