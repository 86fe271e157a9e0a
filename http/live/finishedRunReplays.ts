import type { Database } from "../../db/index.ts";
import { type Checkpoint, START } from "../../events/index.ts";
import { END_OF_LOG, readRunEvents } from "../../events/readRunEvents.ts";
import { runRowState } from "../../runs/findRun.ts";
import { endFrame, eventFrame } from "./sseFrame.ts";

/** A finished run's whole SSE stream, encoded once: every event's frame in log order, then `end`. */
export interface Replay {
  /**
   * The bytes a stream resuming after the event at `position` sends (0: from the
   * start), or null when the run has no event there.
   */
  after(position: number): Uint8Array | null;
  /** What it counts against the cache's cap: its frames and, per event, its position and offset. */
  readonly bytes: number;
}

export interface FinishedRunReplays {
  /** The run's replay once its row is finished (it appends nothing more); null while it may still grow, or when too large to keep. */
  of(runId: string): Promise<Replay | null>;
}

/** Frames kept across all finished runs, in bytes (least recently replayed dropped first). */
export const REPLAY_CACHE_BYTES = 64 * 1024 * 1024;
/** Positions and offsets kept beside the frames, counted per event. */
const PER_EVENT_BYTES = 16;
/** What remembering that a run is too large to keep costs. */
const TOO_LARGE_BYTES = 64;

const PAGE = 500;
const encoder = new TextEncoder();

export interface ReplayLimits {
  /** The most kept in all, in bytes; default REPLAY_CACHE_BYTES. */
  maxBytes?: number;
  /** A run above this is not kept (streamed from the log as before); default a quarter of maxBytes. */
  maxRunBytes?: number;
}

/**
 * Replays of finished runs' event streams, served from memory: a finished run's
 * events never change, so their frames are read, checked and serialized once,
 * not once per client. Bounded: at most `maxBytes` in all, the least recently
 * replayed run dropped first.
 */
export function finishedRunReplays(database: Database, limits: ReplayLimits = {}): FinishedRunReplays {
  const maxBytes = limits.maxBytes ?? REPLAY_CACHE_BYTES;
  const maxRunBytes = limits.maxRunBytes ?? maxBytes / 4;
  const kept = new Map<string, { replay: Replay | null; bytes: number }>();
  const building = new Map<string, Promise<Replay | null>>();
  let total = 0;

  function keep(runId: string, replay: Replay | null, bytes: number) {
    kept.set(runId, { replay, bytes });
    total += bytes;
    for (const [id, entry] of kept) {
      if (total <= maxBytes) break;
      kept.delete(id);
      total -= entry.bytes;
    }
  }

  async function build(runId: string): Promise<Replay | null> {
    if ((await runRowState(database, runId)) !== "finished") return null;
    // Its host sealed it before finishing its row: every event is committed, none will follow.
    const frames: Uint8Array[] = [];
    const positions: number[] = [];
    let size = 0;
    for (let at: Checkpoint = START; ; ) {
      const page = await readRunEvents(database, runId, at, { limit: PAGE, upTo: END_OF_LOG });
      for (const event of page.events) {
        const frame = encoder.encode(eventFrame(event));
        frames.push(frame);
        positions.push(event.globalPosition);
        size += frame.length + PER_EVENT_BYTES;
      }
      // Too large to keep: remembered as such (a few bytes), so it is not read again to find out.
      if (size > maxRunBytes) {
        keep(runId, null, TOO_LARGE_BYTES);
        return null;
      }
      if (page.events.length < PAGE) break;
      at = page.checkpoints.at(-1)!;
    }
    frames.push(encoder.encode(endFrame(runId)));
    const bytes = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    // offsets[i]: where the frame of positions[i] starts; the last one is `end`'s.
    const offsets: number[] = [];
    for (let i = 0, offset = 0; i < frames.length; offset += frames[i].length, i++) {
      offsets.push(offset);
      bytes.set(frames[i], offset);
    }
    const replay: Replay = {
      bytes: bytes.length + positions.length * PER_EVENT_BYTES,
      after(position) {
        if (position === 0) return bytes;
        const i = positions.indexOf(position);
        return i < 0 ? null : bytes.subarray(offsets[i + 1]);
      },
    };
    keep(runId, replay, replay.bytes);
    return replay;
  }

  return {
    async of(runId) {
      const entry = kept.get(runId);
      if (entry) {
        // Most recently replayed last: eviction takes from the front.
        kept.delete(runId);
        kept.set(runId, entry);
        return entry.replay;
      }
      // Clients of one run arrive together: one of them reads the log, the others wait for it.
      let pending = building.get(runId);
      if (!pending) {
        pending = build(runId).finally(() => building.delete(runId));
        building.set(runId, pending);
      }
      return pending;
    },
  };
}
