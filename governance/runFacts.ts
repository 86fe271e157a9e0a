import type { Clock } from "../core/clock.ts";
import { retryOnConnectionLoss } from "../core/connectionLoss.ts";
import type { Database } from "../db/openDatabase.ts";
import { readStream } from "../events/readStream.ts";
import { findMainExecutorId, runStreamId } from "../events/runStreams.ts";
import type { Caps } from "./config.ts";
import type { ExecutorView } from "./executorView.ts";
import { type Downtime, downtimesOf } from "./hostedTime.ts";
import { openRunBudget, readRunBudget } from "./openRunBudget.ts";

/** What governance needs to know of a run that never changes once it started, plus the keys raised so far. */
export interface RunInfo {
  runId: string;
  caps: Caps;
  openedAt: Date;
  /** Reminder keys known to be raised (claimed here or found claimed). */
  raised: Set<string>;
  mainExecutorId?: Promise<string>;
}

/** Caches stay below this many entries; what they hold is immutable, so clearing only costs a reload. */
export const CACHE_LIMIT = 10_000;

export function cached<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    if (map.size >= CACHE_LIMIT) map.clear();
    p = load();
    p.catch(() => map.delete(key));
    map.set(key, p);
  }
  return p;
}

/**
 * Reads (once per process) a run's caps and start from its budget row, an
 * executor's admission time from its first event, the stretches the run had no
 * host, and the run's Main. A run
 * without a row gets one on first use, with `caps` and the clock's now.
 */
export function runFacts(db: Database, clock: Clock, caps: Caps) {
  const runs = new Map<string, Promise<RunInfo>>();
  const admissions = new Map<string, Promise<Date>>();
  const downtimes = new Map<string, Promise<Downtime[]>>();
  return {
    run: (runId: string) =>
      cached(runs, runId, async () => {
        const row = (await readRunBudget(db, runId)) ?? (await openRunBudget(db, runId, caps, clock.now()));
        return { runId, caps: row.caps, openedAt: row.openedAt, raised: new Set<string>() };
      }),

    admittedAt: (state: Pick<ExecutorView, "executorId" | "streamId" | "runId">) =>
      cached(admissions, state.executorId, async () => {
        const [admitted] = await retryOnConnectionLoss(`read ${state.streamId}`, () => readStream(db, state.streamId, { limit: 1, runId: state.runId }));
        if (!admitted) throw new Error(`executor ${state.executorId} has no admitted event in ${state.streamId}`);
        return admitted.recordedAt;
      }),

    /**
     * The stretches the run had no host, from the `run_resumed` facts of its
     * stream. Read once: a host records its own before its runtime (and this
     * governance) is built, and a later one belongs to another host.
     */
    downtimes: (runId: string) => cached(downtimes, runId, async () => downtimesOf(await readStream(db, runStreamId(runId), { runId }))),

    /** Main of the run: a depth-1 Child's parent, otherwise the run's admitted Main. */
    mainOf: (run: RunInfo, state: Pick<ExecutorView, "depth" | "parentExecutorId">): Promise<string> =>
      (run.mainExecutorId ??=
        state.depth === 1 && state.parentExecutorId
          ? Promise.resolve(state.parentExecutorId)
          : retryOnConnectionLoss(`find the Main of run ${run.runId}`, () => findMainExecutorId(db, run.runId)).then((id) => {
              if (!id) throw new Error(`run ${run.runId} has no Main in the log`);
              return id;
            })),
  };
}

export type RunFacts = ReturnType<typeof runFacts>;
