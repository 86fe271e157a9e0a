import { PerformanceObserver, monitorEventLoopDelay } from "node:perf_hooks";

/** A collection the process stopped for: when (performance.now(), ms), how long, and whether it was a full one. */
interface GcPause {
  startMs: number;
  durationMs: number;
  kind: string;
}

/** Where the slowest turns went: collections they waited on, and the event loop's own delay over the step. */
export interface TailReport {
  /** Turns at or above the step's p99. */
  tailTurns: number;
  /** Of those, the ones whose span overlapped a collection pause. */
  tailInGc: number;
  /** Collection pause time inside the tail turns' spans, on average (ms): how much of the tail the collector is. */
  tailGcMs: number;
  /** The tail turns' own span, on average (ms). */
  tailMs: number;
  /** Pauses by kind (scavenge, full, incremental marking, weak callbacks): count, total ms, longest ms. */
  byKind: Record<string, { count: number; totalMs: number; longestMs: number }>;
  /** Collection pauses over the step: how many, how many full, their total and the longest (ms). */
  gcPauses: number;
  majorPauses: number;
  gcTotalMs: number;
  gcLongestMs: number;
  /** The event loop's delay (a timer's lateness, sampled every 10 ms) at p99 and at most (ms). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

// perf_hooks' NODE_PERFORMANCE_GC_* kinds (Deno's perf_hooks has no gc entries).
const KINDS: Record<number, string> = { 1: "scavenge", 4: "full", 8: "incremental", 16: "weak callbacks" };

/**
 * Watches collections and the loop's delay while a step runs, then says how
 * many of its slowest turns overlapped a collection: what is left of the p99
 * is located before a lever is pulled (GC, or the loop, or the database).
 */
export function watchTail(): { stop(): void; report(overheadsMs: readonly number[], atMs: readonly number[], p99Ms: number, forced: { fromMs: number; toMs: number } | null): TailReport } {
  const pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      pauses.push({ startMs: e.startTime, durationMs: e.duration, kind: KINDS[kind ?? 0] ?? `kind ${kind}` });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const stop = () => {
    observer.disconnect();
    loop.disable();
  };
  return {
    stop,
    report(overheadsMs, atMs, p99Ms, forced) {
      stop();
      let tailTurns = 0;
      let tailInGc = 0;
      let tailGcMs = 0;
      let tailMs = 0;
      // The bench's own forced collection (the heap measurement) is no worker's.
      const workerPauses = pauses.filter((p) => forced === null || p.startMs + p.durationMs < forced.fromMs || p.startMs > forced.toMs);
      overheadsMs.forEach((ms, i) => {
        if (ms < p99Ms) return;
        tailTurns++;
        tailMs += ms;
        const to = atMs[i];
        const from = to - ms;
        const inside = workerPauses.reduce((sum, p) => sum + Math.max(0, Math.min(to, p.startMs + p.durationMs) - Math.max(from, p.startMs)), 0);
        if (inside > 0) tailInGc++;
        tailGcMs += inside;
      });
      const byKind: TailReport["byKind"] = {};
      for (const p of workerPauses) {
        const k = (byKind[p.kind] ??= { count: 0, totalMs: 0, longestMs: 0 });
        k.count++;
        k.totalMs += p.durationMs;
        k.longestMs = Math.max(k.longestMs, p.durationMs);
      }
      return {
        tailTurns,
        tailInGc,
        tailGcMs: tailTurns ? tailGcMs / tailTurns : 0,
        tailMs: tailTurns ? tailMs / tailTurns : 0,
        byKind,
        gcPauses: workerPauses.length,
        majorPauses: workerPauses.filter((p) => p.kind === "full").length,
        gcTotalMs: workerPauses.reduce((sum, p) => sum + p.durationMs, 0),
        gcLongestMs: workerPauses.reduce((max, p) => Math.max(max, p.durationMs), 0),
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
      };
    },
  };
}

export function describeTail(t: TailReport): string {
  const ms = (n: number) => n.toFixed(1);
  const kinds = Object.entries(t.byKind).map(([k, v]) => `${v.count} ${k} (${ms(v.totalMs)} ms, longest ${ms(v.longestMs)})`);
  return (
    `tail: ${t.tailInGc} of the ${t.tailTurns} turns at or above p99 overlapped a collection, ` +
    `${ms(t.tailGcMs)} ms of collection pauses inside such a turn's ${ms(t.tailMs)} ms on average; ` +
    `${t.gcPauses} collection pauses, ${ms(t.gcTotalMs)} ms in all: ${kinds.join(", ")}; ` +
    `event loop delay p99 ${ms(t.loopDelayP99Ms)} ms, max ${ms(t.loopDelayMaxMs)} ms`
  );
}
