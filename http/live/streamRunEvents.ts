import type { SSEStreamingApi } from "hono/streaming";
import { isConnectionError, retryOnConnectionLoss } from "../../core/connectionLoss.ts";
import type { Database } from "../../db/index.ts";
import { type Checkpoint, FINAL_EVENT_TYPES, type RecordedEvent } from "../../events/index.ts";
import { compareCheckpoints } from "../../events/readFromCheckpoint.ts";
import type { EventHub } from "./eventHub.ts";
import { readRunEvents } from "../../events/readRunEvents.ts";
import { runProgress } from "../../runs/runProgress.ts";
import type { AnswerDelta, AnswerDeltas } from "../../runs/index.ts";
import { deltaFrame, endFrame, eventFrame } from "./sseFrame.ts";

// After these the run may have stopped (its row finished once its host sealed it): worth asking.
const FINAL_TYPES = new Set([...FINAL_EVENT_TYPES, "run_sealed"]);
/**
 * Looks after a final event whose run is not finished yet: the row is marked just after the seal is
 * appended, and no event follows to wake the stream, so without them `end` waited a heartbeat (15 s).
 */
const FOLLOW_UP_MS = [20, 50, 100, 200, 400, 800, 1_000, 1_000, 1_000];

export interface StreamOptions {
  database: Database;
  hub: EventHub;
  runId: string;
  /** Where the client stands: after this checkpoint (from Last-Event-ID), or the start of the log. */
  from: Checkpoint;
  heartbeatMs: number;
  /** Aborted when the server shuts down: the stream ends and the client resumes elsewhere with Last-Event-ID. */
  signal?: AbortSignal;
  /** Only these recorded types are sent (`?types=`); absent: every one. `end` is always sent. */
  types?: ReadonlySet<string>;
  /** Main's reply as it streams, sent as `answer.delta` events with no id (not recorded: a resume skips them). */
  deltas?: AnswerDeltas;
}

/**
 * Sends a run's events as SSE (id = global position, event = type), first the
 * ones already handled by the hub (read from the log), then live ones, each
 * exactly once and in subscription order; a heartbeat comment while idle. Ends
 * with an `end` event once every executor of the run has stopped and every
 * event of the run has been sent.
 */
export async function streamRunEvents(stream: SSEStreamingApi, o: StreamOptions): Promise<void> {
  const queue: RecordedEvent[] = [];
  const pieces: AnswerDelta[] = [];
  let wake: (() => void) | null = null;
  const attachment = o.hub.attach(o.runId, (event) => {
    queue.push(event);
    wake?.();
  });
  const unsubscribe = o.deltas?.subscribe(o.runId, (delta) => {
    pieces.push(delta);
    wake?.();
  });
  stream.onAbort(() => wake?.());
  const stop = () => wake?.();
  o.signal?.addEventListener("abort", stop);
  const ended = () => stream.aborted || o.signal?.aborted === true;
  let sent = 0;
  // Every event counts towards the end (finished() compares counts); only the asked-for types are written.
  const send = async (event: RecordedEvent) => {
    sent++;
    if (!o.types || o.types.has(event.type)) await stream.write(eventFrame(event));
  };
  // While the database is unreachable the run cannot be known to have stopped: look again at the next
  // final event (the hub delivers the outage's events once it reads again) or heartbeat.
  const finished = async () => {
    try {
      const progress = await runProgress(o.database, o.runId, o.from);
      return progress.stopped && progress.after === sent;
    } catch (e) {
      if (isConnectionError(e)) return false;
      throw e;
    }
  };
  try {
    const horizon = await retryOnConnectionLoss("the live hub's horizon", () => attachment.horizon());
    let skipUntil: number | null = null;
    if (compareCheckpoints(o.from, horizon) < 0) {
      for (let at = o.from; ; ) {
        const page = await retryOnConnectionLoss(`read run ${o.runId}`, () => readRunEvents(o.database, o.runId, at, { limit: 500, upTo: horizon }));
        for (const event of page.events) await send(event);
        if (page.events.length < 500) break;
        at = page.checkpoints.at(-1)!;
      }
    } else if (compareCheckpoints(o.from, horizon) > 0) {
      // The client is ahead of the hub: live events up to its own last one were sent before.
      skipUntil = o.from.position;
    }
    let check = true;
    /** The next follow-up look after a final event (FOLLOW_UP_MS), or null: wait for an event or a heartbeat. */
    let followUp: number | null = null;
    while (!ended()) {
      if (check && (await finished())) {
        await stream.write(endFrame(o.runId));
        break;
      }
      check = false;
      const piece = pieces.shift();
      if (piece) {
        await stream.write(deltaFrame(piece));
        continue;
      }
      const event = queue.shift();
      if (!event) {
        const lookingAgain = followUp !== null && followUp < FOLLOW_UP_MS.length;
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), lookingAgain ? FOLLOW_UP_MS[followUp!] : o.heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = null;
        if (lookingAgain) followUp!++;
        if (timedOut && !lookingAgain && !ended()) await stream.write(": heartbeat\n\n");
        // A run cancelled with no live host is finished by its row, after its last event: look again.
        check = timedOut;
        continue;
      }
      if (skipUntil !== null) {
        if (event.globalPosition === skipUntil) skipUntil = null;
        continue;
      }
      await send(event);
      check = FINAL_TYPES.has(event.type);
      if (check) followUp = 0;
    }
  } finally {
    o.signal?.removeEventListener("abort", stop);
    attachment.detach();
    unsubscribe?.();
  }
}
