import pg from "pg";
import { type LatencySpec, drawLatency } from "./capacityLatency.ts";
import { retainedHeap, retainedHeapWhen } from "./capacityMemory.ts";
import { percentile } from "./overheadProbe.ts";
import { CHILD_TURNS } from "./overheadScenario.ts";

export interface CapacityFloor {
  executors: number;
  overheadMs: { p50: number; p99: number };
  rssPerExecutor: number;
  heapPerExecutor: number;
}

/**
 * The baseline a capacity step is set beside: as many bare "executors" as the
 * step has live executors, each taking CHILD_TURNS steps of a model wait
 * (drawn as the step's are) then one single-row INSERT commit of a turn-sized payload,
 * through a pool of the same size as the store's. What is left above the
 * latency is the machine's and the database's, with no runtime at all.
 */
export async function measureCapacityFloor(
  url: string,
  { executors, latency, payloadBytes = 1200, poolSize = 10 }: { executors: number; latency: LatencySpec; payloadBytes?: number; poolSize?: number },
): Promise<CapacityFloor> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS bench_capacity_floor (id bigserial PRIMARY KEY, executor integer NOT NULL, payload jsonb NOT NULL)`);
    const payload = JSON.stringify({ filler: "x".repeat(Math.max(0, payloadBytes - 14)) });
    const heapBefore = retainedHeap();
    const before = process.memoryUsage();
    let peak = { rss: before.rss };
    const sampler = setInterval(() => {
      peak = { rss: Math.max(peak.rss, process.memoryUsage().rss) };
    }, 250);
    const overheads: number[] = [];
    const retained = retainedHeapWhen(() => overheads.length >= (executors * CHILD_TURNS) / 2);
    const draw = drawLatency(latency);
    const executor = async (id: number) => {
      for (let step = 0; step < CHILD_TURNS; step++) {
        await new Promise((r) => setTimeout(r, draw()));
        const replied = performance.now();
        await pool.query(`INSERT INTO bench_capacity_floor (executor, payload) VALUES ($1, $2::jsonb)`, [id, payload]);
        overheads.push(performance.now() - replied);
      }
    };
    try {
      await Promise.all(Array.from({ length: executors }, (_, i) => executor(i)));
    } finally {
      clearInterval(sampler);
      retained.stop();
    }
    await pool.query(`DROP TABLE bench_capacity_floor`);
    return {
      executors,
      overheadMs: { p50: percentile(overheads, 50), p99: percentile(overheads, 99) },
      rssPerExecutor: (peak.rss - before.rss) / executors,
      heapPerExecutor: ((retained.bytes() ?? Number.NaN) - heapBefore) / executors,
    };
  } finally {
    await pool.end();
  }
}
