import { type EventStore, watchAppends } from "../events/index.ts";
import type { ExecutorRunner } from "./runner.ts";

export interface InboxWatchOptions {
  /** The runners of this process whose executors are not final. */
  live: () => readonly ExecutorRunner[];
  /** The runner of a stream, if it lives in this process. */
  runnerOf: (streamId: string) => ExecutorRunner | undefined;
  /** Only this run's executors (a worker's hosted run): other runs' appends never reach this watch. */
  runId?: string;
}

/**
 * Watches the log for facts that other processes post to this process's
 * executors (a cancel request from `ariadne cancel`, a budget decision). An
 * append notice names its stream and version: a runner behind it is poked if
 * it waits on a long effect, or reads its stream before its next wait; no
 * query for anyone else. When anything may have changed (a notice without
 * names, or after the shared LISTEN connection came back), every waiting
 * runner compares its stream's version once. Returns the function that stops watching.
 */
export function watchInboxes(store: EventStore, o: InboxWatchOptions): Promise<() => Promise<void>> {
  let checking: Promise<void> | null = null;
  let again = false;
  const checkAll = async () => {
    do {
      again = false;
      const runners = o.live();
      for (const r of runners) if (!r.waiting) r.noticed(Number.POSITIVE_INFINITY);
      await Promise.all(
        runners
          .filter((r) => r.waiting)
          .map(async (r) => {
            if ((await store.streamVersion(r.state.streamId, r.state.runId)) > r.fold.state.version) await r.poke();
          }),
      );
    } while (again);
  };
  return watchAppends(store.database, {
    runId: o.runId,
    onAppend(streamId, version) {
      const r = o.runnerOf(streamId);
      if (!r || r.fold.done || version <= r.fold.state.version) return;
      if (r.waiting) void r.poke().catch(() => {});
      else r.noticed(version);
    },
    onAnything() {
      if (checking) {
        again = true;
        return;
      }
      checking = checkAll()
        .catch(() => {})
        .finally(() => (checking = null));
    },
  });
}
