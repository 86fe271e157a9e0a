import { EVENTS_CHANNEL, type EventStore } from "../events/index.ts";
import type { ExecutorRunner } from "./runner.ts";

/**
 * Watches the log for facts that other processes post to this process's
 * executors (a cancel request from `ariadne cancel`, a budget decision):
 * on each notification (LISTEN/NOTIFY on PostgreSQL, in-process on PGlite),
 * every runner waiting on a long effect whose stream moved on is poked.
 * Returns the function that stops watching.
 */
export function watchInboxes(store: EventStore, live: () => readonly ExecutorRunner[]): Promise<() => Promise<void>> {
  let checking: Promise<void> | null = null;
  let again = false;
  const check = async () => {
    do {
      again = false;
      const runners = live();
      const waiting = runners.filter((r) => r.waiting);
      // A runner busy between waits reads its stream before its next wait.
      for (const r of runners) if (!r.waiting) r.stale = true;
      await Promise.all(
        waiting.map(async (r) => {
          if ((await store.streamVersion(r.state.streamId)) > r.state.version) await r.poke();
        }),
      );
    } while (again);
  };
  return store.database.listen(EVENTS_CHANNEL, () => {
    if (checking) {
      again = true;
      return;
    }
    checking = check()
      .catch(() => {})
      .finally(() => (checking = null));
  });
}
