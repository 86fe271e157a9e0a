import { setFlagsFromString, writeHeapSnapshot } from "node:v8";
import { runInNewContext } from "node:vm";

// A full collection on demand, without starting node with --expose-gc (npm run bench does not).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * The heap still reachable after a full collection: what live executors hold,
 * not the garbage a lazy collector has not reclaimed yet (peak heap mixes both).
 */
export function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Takes retainedHeap() once, the first time `ready()` is true when polled: the
 * moment a step's executors are all live and mid-way (one collection, one pause,
 * whose span pause() gives: no worker forces a collection, so a bench leaves
 * the turns that waited on it out of its latency figures).
 * With ARIADNE_BENCH_HEAP_SNAPSHOT=<dir> it also writes a heap snapshot there
 * then (open it in Chrome's DevTools, Memory tab, to see what executors hold).
 */
export function retainedHeapWhen(
  ready: () => boolean,
  taken: () => void = () => {},
  pollMs = 100,
): { stop(): void; bytes(): number | null; pause(): { fromMs: number; toMs: number } | null } {
  let bytes: number | null = null;
  let pause: { fromMs: number; toMs: number } | null = null;
  const timer = setInterval(() => {
    if (bytes === null && ready()) {
      taken();
      const fromMs = performance.now();
      bytes = retainedHeap();
      pause = { fromMs, toMs: performance.now() };
      clearInterval(timer);
      const dir = process.env.ARIADNE_BENCH_HEAP_SNAPSHOT;
      if (dir) console.log(`· heap snapshot: ${writeHeapSnapshot(`${dir}/capacity-${process.pid}-${Date.now()}.heapsnapshot`)}`);
    }
  }, pollMs);
  return { stop: () => clearInterval(timer), bytes: () => bytes, pause: () => pause };
}
