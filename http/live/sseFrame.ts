import type { RecordedEvent } from "../../events/index.ts";
import type { AnswerDelta } from "../../runs/index.ts";
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

/** A piece of Main's reply as it streams: no id (it is not recorded, so a resume with Last-Event-ID skips it). */
export const deltaFrame = (d: AnswerDelta): string =>
  `event: answer.delta\ndata: ${JSON.stringify({ executorId: d.executorId, call: d.call, scripted: d.scripted, ...d.delta })}\n\n`;

/** The first frame of `POST /v1/runs` answered as a stream: the run as created (no id: not an event of the log). */
export const runFrame = (run: unknown): string => `event: run\ndata: ${JSON.stringify(run)}\n\n`;
