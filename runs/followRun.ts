import type { Database } from "../db/openDatabase.ts";
import { EVENTS_CHANNEL, type RecordedEvent, START } from "../events/index.ts";
import { END_OF_LOG, readRunEvents } from "../events/readRunEvents.ts";
import { type RunRow, findRun } from "./findRun.ts";
import type { RunRowState } from "./lease/runLease.ts";

export interface FollowOptions {
  database: Database;
  runId: string;
  /** Each batch of the run's events not yet delivered, in log order (the first ones are what the log already held). */
  onEvents: (events: RecordedEvent[]) => void;
  /** The run's row after each look: `submitted` means it waits for a worker, which the log cannot say. */
  onRow?: (row: RunRow) => void;
  /** Looks again at least this often (an append wakes it sooner); default 500 ms. */
  pollMs?: number;
  signal?: AbortSignal;
}

const PAGE = 500;

/**
 * Follows a run hosted anywhere (this process, a worker, a server) through the
 * log until it stops: its row finished (its host sealed it) or interrupted (it
 * waits for `ariadne resume`). Every event is delivered once, in the order a
 * subscription reads the log, so a slow commit is never skipped. Resolves with
 * the row's final state, or "aborted" when the signal stopped it first. A run
 * with no row throws NotFoundError at once.
 */
export async function followRun(o: FollowOptions): Promise<RunRowState | "aborted"> {
  let wake: (() => void) | null = null;
  const unlisten = await o.database.listen(EVENTS_CHANNEL, () => wake?.());
  const onAbort = () => wake?.();
  o.signal?.addEventListener("abort", onAbort);
  try {
    let at = START;
    while (!o.signal?.aborted) {
      // The row first: once it is finished (or interrupted), every event of the run is committed, so all are read.
      const row = await findRun(o.database, o.runId);
      const stopped = row.state === "finished" || row.state === "interrupted";
      for (;;) {
        const page = await readRunEvents(o.database, o.runId, at, { limit: PAGE, upTo: stopped ? END_OF_LOG : undefined });
        if (page.events.length) {
          o.onEvents(page.events);
          at = page.checkpoints.at(-1)!;
        }
        if (page.events.length < PAGE) break;
      }
      o.onRow?.(row);
      if (stopped) return row.state;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, o.pollMs ?? 500);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
        if (o.signal?.aborted) done();
      });
    }
    return "aborted";
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    await unlisten();
  }
}
