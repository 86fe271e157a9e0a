import type { RecordedEvent } from "../../events/index.ts";
import { renderEvent } from "../renderEvent.ts";

/*
 * SSE frames exactly as hono's writeSSE writes them (event, data, id; the data is
 * JSON, one line). Live streams and cached replays both send these, so a client
 * cannot tell which path served it.
 */

/** A run's event as one SSE frame: `id` is its global position, `event` its type. */
export const eventFrame = (event: RecordedEvent): string =>
  `event: ${event.type}\ndata: ${JSON.stringify(renderEvent(event))}\nid: ${event.globalPosition}\n\n`;

/** The frame after the last event of a stopped run. */
export const endFrame = (runId: string): string => `event: end\ndata: ${JSON.stringify({ runId })}\n\n`;
