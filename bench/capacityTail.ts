import { PerformanceObserver, monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";

/** A collection the process stopped for: when (performance.now(), ms), how long, and of which kind. */
export interface GcPause {
  startMs: number;
  durationMs: number;
  kind: string;
}

/** Where the slowest turns went: the collections inside them, and the event loop's lateness over the step. */
export interface TailReport {
  /** Turns at or above the step's p99. */
  tailTurns: number;
  /** Of those, the ones whose span overlapped a collection pause. */
  tailInGc: number;
  /** A tail turn's span on average, and the collection pauses inside it on average (ms): how much of the tail the collector is. */
  tailMs: number;
  tailGcMs: number;
  /** Pauses over the step by kind (scavenge, full, incremental marking, weak callbacks). */
  byKind: Record<string, { count: number; totalMs: number; longestMs: number }>;
  /** How late a 10 ms timer fired, at p99 and at most (ms): work that held the loop. */
  loopLateP99Ms: number;
  loopLateMaxMs: number;
  /** The young generation's size at the end of the step (KB): a small one is collected often. */
  youngKb: number;
}

// perf_hooks' NODE_PERFORMANCE_GC_* kinds (Deno's perf_hooks has no gc entries).
const KINDS: Record<number, string> = { 1: "scavenge", 4: "full", 8: "incremental", 16: "weak callbacks" };
const LOOP_RESOLUTION_MS = 10;

/**
 * Watches collections and the loop's lateness while a step runs, so the
 * step can say how much of its slowest turns the collector was: what is left
 * of the p99 is located (the collector, the loop, or the waits on the
 * database) before a lever is pulled.
 */
export function watchTail(): { stop(): void; pauses: GcPause[]; loopLateMs(): { p99: number; max: number }; youngKb(): number } {
  const pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      pauses.push({ startMs: e.startTime, durationMs: e.duration, kind: KINDS[kind] ?? `kind ${kind}` });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  // The histogram holds the timer's whole interval: its lateness is what exceeds the resolution.
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const late = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  return {
    pauses,
    stop() {
      observer.disconnect();
      loop.disable();
    },
    loopLateMs: () => ({ p99: late(loop.percentile(99)), max: late(loop.max) }),
    youngKb: () => (getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? Number.NaN) / 1024,
  };
}

/**
 * The turns at or above `p99Ms` (each `ms` long, ending `atMs`) against the
 * pauses seen; pauses inside `forced` (the bench's own full collection, which
 * no worker makes) are left out.
 */
export function tailOf(
  turns: readonly { ms: number; atMs: number }[],
  p99Ms: number,
  pauses: readonly GcPause[],
  forced: { fromMs: number; toMs: number } | null,
  loopLateMs: { p99: number; max: number },
  youngKb = Number.NaN,
): TailReport {
  const workerPauses = pauses.filter((p) => forced === null || p.startMs + p.durationMs <= forced.fromMs || p.startMs >= forced.toMs);
  const tail = turns.filter((t) => t.ms >= p99Ms);
  const gcInside = tail.map(({ ms, atMs }) =>
    workerPauses.reduce((sum, p) => sum + Math.max(0, Math.min(atMs, p.startMs + p.durationMs) - Math.max(atMs - ms, p.startMs)), 0),
  );
  const byKind: TailReport["byKind"] = {};
  for (const p of workerPauses) {
    const k = (byKind[p.kind] ??= { count: 0, totalMs: 0, longestMs: 0 });
    k.count++;
    k.totalMs += p.durationMs;
    k.longestMs = Math.max(k.longestMs, p.durationMs);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    tailTurns: tail.length,
    tailInGc: gcInside.filter((ms) => ms > 0).length,
    tailMs: mean(tail.map((t) => t.ms)),
    tailGcMs: mean(gcInside),
    byKind,
    loopLateP99Ms: loopLateMs.p99,
    loopLateMaxMs: loopLateMs.max,
    youngKb,
  };
}

export function describeTail(t: TailReport): string {
  const ms = (n: number) => n.toFixed(1);
  const kinds = Object.entries(t.byKind).map(([k, v]) => `${v.count} ${k} (${ms(v.totalMs)} ms, longest ${ms(v.longestMs)})`);
  return (
    `tail: ${t.tailInGc} of the ${t.tailTurns} turns at or above p99 overlapped a collection; ` +
    `such a turn took ${ms(t.tailMs)} ms, ${ms(t.tailGcMs)} ms of it in collection pauses, on average; ` +
    `pauses: ${kinds.join(", ") || "none seen"}; young generation ${Math.round(t.youngKb)} KB at the end; a 10 ms timer late by ${ms(t.loopLateP99Ms)} ms at p99, ${ms(t.loopLateMaxMs)} ms at most`
  );
}
