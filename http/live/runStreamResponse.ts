import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Checkpoint } from "../../events/index.ts";
import { answerDeltas } from "../../runs/index.ts";
import type { AppDeps, AppEnv, Guards } from "../deps.ts";
import { limitReached } from "../middleware/limitAnswer.ts";
import type { StreamSlot } from "./openStreams.ts";
import { streamRunEvents } from "./streamRunEvents.ts";
import type { EventFilter } from "./eventFilter.ts";

type OpenSlot = Extract<StreamSlot, { ok: true }>;

/** A live stream slot for the caller, or a 429 naming the cap it hit. */
export function openSlot(c: Context<AppEnv>, guards: Guards): OpenSlot {
  const slot = guards.streams.open(c.get("principal"));
  if (!slot.ok) throw limitReached(slot.detail, slot.retryAfterSeconds, slot.fields);
  return slot;
}

/**
 * A run's events as a live SSE response, from a checkpoint: the same frames
 * for `GET /v1/runs/{id}/events` and a streamed `POST /v1/runs` (which sends
 * the run first, as `first`). Holds its slot until the stream ends; ends at
 * shutdown or when the key is revoked.
 */
export function runStreamResponse(
  c: Context<AppEnv>,
  deps: AppDeps,
  slot: OpenSlot,
  o: { runId: string; from: Checkpoint; filter: EventFilter; first?: string },
): Response {
  const signal = deps.shutdown ? AbortSignal.any([deps.shutdown, slot.signal]) : slot.signal;
  return streamSSE(c, async (stream) => {
    // Given back the moment the client goes away, not when the loop next looks (it may be mid-read or mid-write).
    stream.onAbort(() => slot.close());
    try {
      if (o.first) await stream.write(o.first);
      await streamRunEvents(stream, {
        database: deps.database,
        hub: deps.hub,
        runId: o.runId,
        from: o.from,
        heartbeatMs: deps.heartbeatMs ?? 15_000,
        signal,
        types: o.filter.types,
        deltas: o.filter.deltas ? (deps.deltas ?? answerDeltas) : undefined,
      });
    } finally {
      slot.close();
    }
  });
}
