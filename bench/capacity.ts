import { availableParallelism, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { type CapacityFloor, measureCapacityFloor } from "./capacityFloor.ts";
import { type CapacityStep, runCapacityStep } from "./capacityRun.ts";
import { mainWorkers, workersOptions } from "./capacityWorkers.ts";
import { openBenchPostgres } from "./overheadEngines.ts";
import { f, table } from "./overheadReport.ts";
import { CHILDREN, CHILD_TURNS } from "./overheadScenario.ts";

/**
 * How many live executors one worker process carries: runs of the overhead
 * scenario (Main delegates 4 Children, each takes 10 turns) hosted at once by
 * one worker on PostgreSQL, the scripted model answering after a latency (1 s
 * by default). Per Child turn, the runtime's own overhead is the gap between
 * its model calls minus the latency; memory is the heap still reachable after
 * a full collection once every Child is live and mid-way (and the peak RSS),
 * less what the process held before the step, per live Child. Each step is set
 * beside a floor at the same concurrency: bare executors that wait the same
 * latency and commit one turn-sized row per step through a pool of the same size.
 *
 *   npm run bench -- capacity                        quick: 10 and 25 runs (40 and 100 Children), 1 s
 *   npm run bench -- capacity --size=full            25, 50 and 75 runs (up to 300 Children)
 *
 * The worker's runs share one LISTEN connection (db/sharedListener.ts), so a
 * step needs the pools' connections whatever its size (the "db connections"
 * column shows it; it grew as runs + 12 while each run listened on its own).
 *   npm run bench -- capacity --runs=50,200 --latency-ms=10000
 *
 * With --workers=K the runs are hosted by worker processes instead, one against
 * K on the same database, each pinned to its own core (bench/capacityWorkers.ts):
 *   npm run bench -- capacity --workers=2            quick: 10 and 15 runs per process
 *   npm run bench -- capacity --workers=2 --size=full
 */
const SIZES = { quick: [10, 25], full: [25, 50, 75] } as const;
/** What a step must meet: the issue's aim for one worker (#19). */
const AIM = { p99Ms: 50, bytesPerExecutor: 100 * 1024 };

export interface CapacityOptions {
  runs: number[];
  latencyMs: number;
}

/** `--size=quick|full`, `--runs=N[,N...]` (wins over the size), `--latency-ms=N`; other arguments are the bench runner's. */
export function capacityOptions(argv: readonly string[]): CapacityOptions {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const size = flag("size") ?? "quick";
  if (!(size in SIZES)) throw new Error(`capacity: --size must be quick or full, not "${size}"`);
  const runs = flag("runs")?.split(",").map(Number) ?? [...SIZES[size as keyof typeof SIZES]];
  if (runs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`capacity: --runs must be positive integers, comma-separated, not "${flag("runs")}"`);
  const latencyMs = Number(flag("latency-ms") ?? 1000);
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`capacity: --latency-ms must be a non-negative number, not "${flag("latency-ms")}"`);
  return { runs, latencyMs };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { runs, latencyMs } = capacityOptions(argv);
  const workers = workersOptions(argv, latencyMs);
  if (workers) return mainWorkers(workers);
  const started = performance.now();
  const cpus = availableParallelism();
  const load = loadavg()[0];
  progress(`capacity bench: runs of Main + ${CHILDREN} Children x ${CHILD_TURNS} turns, ${runs.join(", ")} runs at once on one worker, model latency ${latencyMs} ms`);
  progress(`machine: ${cpus} CPUs, load average ${load.toFixed(2)}${load > cpus / 2 ? " (busy: other processes will skew these numbers)" : ""}`);
  const bench = await openBenchPostgres();
  const rows: { step: CapacityStep; floor: CapacityFloor }[] = [];
  try {
    progress(`postgres: ${bench.describe}`);
    for (const n of runs) {
      progress(`${n} runs (${n * CHILDREN} live Children) hosted by one worker`);
      const step = await runCapacityStep(bench.store.database, bench.store, { runs: n, latencyMs });
      progress(`floor: ${step.liveExecutors} bare executors, ${CHILD_TURNS} steps of ${latencyMs} ms then one INSERT commit`);
      const floor = await measureCapacityFloor(bench.url!, { executors: step.liveExecutors, latencyMs });
      rows.push({ step, floor });
    }
  } finally {
    await bench.close();
  }

  console.log(`\nCapacity of one worker process (aim: overhead p99 <= ${AIM.p99Ms} ms per turn and <= ${AIM.bytesPerExecutor / 1024} KB per live executor)`);
  console.log(`  overhead: gap between a Child's model calls minus the ${latencyMs} ms model latency; floor: bare executors, same wait, one INSERT commit per step`);
  console.log("  heap: reachable after a full collection with every Child live and mid-way, less before the step; db connections: most at once (pg_stat_activity)\n");
  table(
    ["runs", "live Children", "turns", "p50 ms", "p99 ms", "floor p99 ms", "p99 ratio", "heap KB/exec", "floor heap KB/exec", "heap ratio", "peak RSS KB/exec", "db connections", "wall s", "aim"],
    rows.map(({ step: s, floor }) => [
      s.runs,
      s.liveExecutors,
      s.overheadMs.samples,
      f(s.overheadMs.p50, 1),
      f(s.overheadMs.p99, 1),
      f(floor.overheadMs.p99, 1),
      `${f(s.overheadMs.p99 / floor.overheadMs.p99, 2)}x`,
      f(s.heapPerExecutor / 1024, 1),
      f(floor.heapPerExecutor / 1024, 1),
      // Bare executors retain next to nothing: below 1 KB each the ratio says nothing.
      floor.heapPerExecutor >= 1024 ? `${f(s.heapPerExecutor / floor.heapPerExecutor, 2)}x` : "n/a",
      f(s.rssPerExecutor / 1024, 1),
      s.connections,
      f(s.wallMs / 1000, 1),
      meets(s) ? "met" : "MISSED",
    ]),
  );
  const best = rows.filter((r) => meets(r.step)).at(-1);
  console.log(
    `\n  Largest count that meets the aim: ${best ? `${best.step.liveExecutors} live Children (${best.step.runs} runs)` : "none of the sizes tried"}` +
      ` at ${latencyMs} ms model latency; sizes tried: ${runs.join(", ")} runs.`,
  );
  console.log(`  machine: ${cpus} CPUs, 1-min load average ${load.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end (the bench itself adds about 1)`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Memory is judged on the retained heap: peak RSS also counts garbage not yet collected and pages V8 keeps. */
const meets = (s: CapacityStep) => s.overheadMs.p99 <= AIM.p99Ms && s.heapPerExecutor <= AIM.bytesPerExecutor;

function progress(message: string): void {
  console.log(`· ${message}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
