import { performance } from "node:perf_hooks";
import { sleep } from "../../core/sleep.ts";

/**
 * Holds a worker back from taking another run while the runs it hosts keep
 * its event loop busy. Starting a run is a burst of work (admissions, offered
 * specs, the first turns, Children delegated), and Node serves callbacks in
 * the order they arrive: 400 runs taken at once made the Children already
 * running wait behind 2,000 admissions (runtime overhead p99 of a turn 642 ms
 * in the first 20 s of the capacity bench against 120-265 ms after). Runs not
 * taken stay queued in the log for this worker's next look or another worker.
 *
 * Busy is the event loop's utilisation (performance.eventLoopUtilization:
 * time in callbacks over time) since the last look, at most `windowMs` ago,
 * or any query waiting for one of the store's pooled connections: a worker
 * whose loop is idle may still be waiting on its database (400 runs taken at
 * once queued 393 queries behind a pool of 10, the loop 86% idle).
 * The hold is bounded (`maxHoldMs`), so a worker whose loop is never idle
 * (a process descheduled by a loaded machine looks busy too) still takes a
 * run now and then.
 */
export interface AdmissionGate {
  /** Resolves when another run may be taken; at once when nothing is hosted. */
  ready(hosted: number, signal?: AbortSignal): Promise<void>;
}

export interface AdmissionGateOptions {
  /** Above this share of time in callbacks the worker takes nothing (0 < busy <= 1; 1 never holds). */
  busy?: number;
  /** How long each look measures. */
  windowMs?: number;
  /** The longest a take is held. */
  maxHoldMs?: number;
  /** Queries waiting for a pooled connection now (Database.waiting); none when absent. */
  waiting?: () => number;
}

export const ADMISSION_DEFAULTS = { busy: 0.6, windowMs: 50, maxHoldMs: 2_000 };

export function admissionGate(options: AdmissionGateOptions = {}): AdmissionGate {
  const o = {
    busy: options.busy ?? ADMISSION_DEFAULTS.busy,
    windowMs: options.windowMs ?? ADMISSION_DEFAULTS.windowMs,
    maxHoldMs: options.maxHoldMs ?? ADMISSION_DEFAULTS.maxHoldMs,
  };
  const waiting = options.waiting ?? (() => 0);
  if (!(o.busy > 0 && o.busy <= 1)) throw new RangeError(`admission gate: busy must be in (0, 1], got ${o.busy}`);
  if (o.busy === 1) return { ready: async () => {} };
  let mark = performance.eventLoopUtilization();
  let markedAt = performance.now();
  /** Utilisation over the last window at least: a mark older than a few windows is renewed first (an idle spell long ago says nothing of now). */
  const utilisation = async (signal?: AbortSignal) => {
    if (performance.now() - markedAt > 4 * o.windowMs) {
      mark = performance.eventLoopUtilization();
      markedAt = performance.now();
    }
    const rest = o.windowMs - (performance.now() - markedAt);
    if (rest > 0) await sleep(rest, signal);
    const { utilization } = performance.eventLoopUtilization(mark);
    mark = performance.eventLoopUtilization();
    markedAt = performance.now();
    return utilization;
  };
  return {
    async ready(hosted, signal) {
      if (hosted === 0) return;
      const until = performance.now() + o.maxHoldMs;
      while (!signal?.aborted && performance.now() < until && ((await utilisation(signal)) > o.busy || waiting() > 0)) {
        // the utilisation's own wait is the back-off
      }
    },
  };
}
