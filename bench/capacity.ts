import { pathToFileURL } from "node:url";
import { type CapacityFloor, measureCapacityFloor } from "./capacityFloor.ts";
import { type LatencySpec, describeLatency, latencyOptions } from "./capacityLatency.ts";
import { type CapacityStep, admitBusyOption, runCapacityStep } from "./capacityRun.ts";
import { V8_THREADS_NORMAL } from "./capacityWorker.ts";
import { describeV8Threads, mainWorkers, workersOptions } from "./capacityWorkers.ts";
import { openBenchPostgres } from "./overheadEngines.ts";
import { f, table } from "./overheadReport.ts";
import { CHILDREN, CHILD_TURNS } from "./overheadScenario.ts";
import { type MedianRow, medianRun } from "./capacityMedian.ts";
import { describeMachine, stealCell } from "./capacityMachine.ts";
import { describePhases } from "./capacityPhases.ts";
import { describeTail } from "./capacityTail.ts";
import { progress, readMachine, repeatFlag } from "./progress.ts";
import { setV8FlagsFor, v8FlagsFor } from "../cli/v8Flags.mjs";
import { lowerV8ThreadsFor } from "../cli/v8Threads.mjs";

/**
 * How many live executors one worker process carries: runs of the overhead
 * scenario (Main delegates 4 Children, each takes 10 turns) hosted at once by
 * one worker on PostgreSQL, the scripted model answering after a latency drawn
 * from a heavy-tailed log-normal (median 5 s, p99 60 s, seeded; bench/capacityLatency.ts)
 * and reporting a drawn count of output tokens (median 400, p99 4,000) that
 * the run's budget is charged. A live executor is a Child waiting on the model
 * or a Main waiting on its Children. Per Child turn, the runtime's own overhead
 * is the time from a model reply's return to the Child's next model call;
 * memory is the heap still reachable after a full collection once every
 * Child is live and mid-way, less what the process held before the step, per
 * live executor. Each step is set beside a floor at the same concurrency: bare
 * executors that wait the same drawn latencies and commit one turn-sized row per
 * step through a pool of the same size.
 *
 * Time is scaled: every drawn latency is multiplied by --time-scale (0.1 by
 * default: waits of median 0.5 s, p99 6 s), so a step takes a minute or two
 * while the distribution keeps its shape. Scaling packs the same turns into
 * less time, so N executors at scale s ask of the runtime what N / s would at
 * real latency: the overhead figure errs on the hard side, the memory figure is N's.
 *
 * Each size is measured --repeat times (3 by default); its row is the run with
 * the median p99, every run's p99 printed beside it.
 *
 *   npm run bench -- capacity                        quick: 100 and 400 runs (500 and 2,000 live executors)
 *   npm run bench -- capacity --size=full            100, 200, 400 and 600 runs
 *   npm run bench -- capacity --runs=420 --time-scale=1          the issue's aims at real latency (about 13 min a run)
 *   npm run bench -- capacity --runs=400 --time-scale=1 --seed=7 --median-ms=5000 --p99-ms=60000 --repeat=1
 *   npm run bench -- capacity --admit-busy=1         the worker's admission gate off (runs/host/admissionGate.ts)
 *   npm run bench -- capacity --v8-defaults          without the V8 flags `ariadne worker` sets (cli/v8Flags.mjs)
 *   npm run bench -- capacity --v8-threads=normal    V8's platform threads left at node's priority (cli/v8Threads.mjs)
 *
 * The worker's runs share one LISTEN connection (db/sharedListener.ts), so a
 * step needs the pools' connections whatever its size (the "db connections"
 * column shows it).
 *
 * With --workers=K the runs are hosted by worker processes instead, one against
 * K on the same database, each pinned to its own core (bench/capacityWorkers.ts):
 *   npm run bench -- capacity --workers=2            quick
 *   npm run bench -- capacity --workers=2 --size=full
 *   npm run bench -- capacity --workers=2 --node-flag=--single-threaded-gc   each worker started with a flag of node's own
 */
const SIZES = { quick: [100, 400], full: [100, 200, 400, 600] } as const;
/** What a step must meet: the issue's aims for one worker (#34). */
const AIM = { p99Ms: 50, bytesPerExecutor: 50 * 1024, liveExecutors: 2000 };
/** The pools a worker opens (the store's and the sampler's) and its one shared LISTEN connection, plus slack for the bench's own. */
const CONNECTION_BOUND = 15;

export interface CapacityOptions {
  runs: number[];
  /** Times each size is measured; its row is the run with the median p99. */
  repeat: number;
  latency: LatencySpec;
  admitBusy?: number;
}

/** `--size=quick|full`, `--runs=N[,N...]` (wins over the size), the latency flags (capacityLatency.ts); other arguments are the bench runner's. */
export function capacityOptions(argv: readonly string[]): CapacityOptions {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const size = flag("size") ?? "quick";
  if (!(size in SIZES)) throw new Error(`capacity: --size must be quick or full, not "${size}"`);
  const runs = flag("runs")?.split(",").map(Number) ?? [...SIZES[size as keyof typeof SIZES]];
  if (runs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`capacity: --runs must be positive integers, comma-separated, not "${flag("runs")}"`);
  return { runs, repeat: repeatFlag(argv, "capacity"), latency: latencyOptions(argv), admitBusy: admitBusyOption(argv) };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { runs, repeat, latency, admitBusy } = capacityOptions(argv);
  // One worker process as shipped: the V8 flags `ariadne worker` sets (--v8-defaults: without them).
  if (!argv.includes("--v8-defaults")) setV8FlagsFor("worker");
  const workers = workersOptions(argv, latency);
  if (workers) return mainWorkers(workers);
  // And its V8 platform threads at nice 19, as `ariadne worker` puts them (--v8-threads=normal: left as node starts them).
  const v8ThreadsLowered = argv.includes(V8_THREADS_NORMAL) ? null : lowerV8ThreadsFor("worker");
  const started = performance.now();
  const machine = readMachine();
  progress(`capacity bench: runs of Main + ${CHILDREN} Children x ${CHILD_TURNS} turns, ${runs.join(", ")} runs at once on one worker`);
  progress(describeLatency(latency));
  progress(`V8 flags: ${argv.includes("--v8-defaults") ? "V8's defaults (--v8-defaults)" : `the worker's, ${v8FlagsFor("worker").join(" ")}`}`);
  progress(describeV8Threads(v8ThreadsLowered === null, v8ThreadsLowered ? [v8ThreadsLowered.length] : []));
  progress(`worker admission gate: ${admitBusy === undefined ? "the worker's default" : admitBusy === 1 ? "off (--admit-busy=1)" : `busy above ${admitBusy}`}`);
  progress(machine.atStart);
  const bench = await openBenchPostgres();
  const rows: MedianRow[] = [];
  try {
    progress(`postgres: ${bench.describe}`);
    for (const n of runs) {
      const taken: { step: CapacityStep; floor: CapacityFloor }[] = [];
      for (let i = 1; i <= repeat; i++) {
        progress(`${n} runs (${n * (1 + CHILDREN)} live executors) hosted by one worker, run ${i} of ${repeat}`);
        const step = await runCapacityStep(bench.store.database, bench.store, { runs: n, latency, admitBusy });
        // Each run's figures as it ends, so a bench cut short keeps what it measured.
        progress(
          `  p50 ${f(step.overheadMs.p50, 1)} ms, p99 ${f(step.overheadMs.p99, 1)} ms, ${step.peakLive} live at once at the most, ` +
            `${f(step.heapPerExecutor / 1024, 1)} KB heap an executor, ${step.connections} db connections; ${describeTail(step.tail)}`,
        );
        progress(`  ${describePhases(step.phases)}`);
        progress(`  ${describeMachine(step.machine)}`);
        progress(`  floor: ${step.liveExecutors} bare executors, ${CHILD_TURNS} drawn waits each then one INSERT commit`);
        const floor = await measureCapacityFloor(bench.url!, { executors: step.liveExecutors, latency });
        progress(`  floor p99 ${f(floor.overheadMs.p99, 1)} ms`);
        taken.push({ step, floor });
      }
      rows.push(medianRun(taken));
    }
  } finally {
    await bench.close();
  }

  console.log(
    `\nCapacity of one worker process, each size the median of ${repeat} run${repeat === 1 ? "" : "s"} by p99 (aims: >= ${AIM.liveExecutors} live executors with overhead p99 <= ${AIM.p99Ms} ms a turn, <= ${AIM.bytesPerExecutor / 1024} KB heap a live executor, db connections <= ${CONNECTION_BOUND})`,
  );
  console.log(`  ${describeLatency(latency)}; N executors at time scale s load the runtime as N / s would at real latency`);
  console.log("  overhead: from a model reply's return to the Child's next model call; floor: bare executors, same drawn waits, one INSERT commit per step");
  console.log("  turns: Child turns in the overhead figures (+ those left out: they waited on the heap measurement's forced full collection, which no worker makes)");
  console.log("  heap: reachable after a full collection once the Children are on average mid-way, less before the step, over the executors live then (admitted, not ended: Mains and Children)");
  console.log("  steal: CPU time the hypervisor gave other guests, over the step and in the seconds of the turns at or above p99");
  console.log("  most waiting on model: model calls waiting on their latency at once (the rest of the live executors wait on their Children, or on the runtime); db connections: most at once (pg_stat_activity)\n");
  table(
    ["runs", "p99 ms of each run", "executors", "most live at once", "live at heap", "most waiting on model", "turns", "wait p50 s", "wait p99 s", "p50 ms", "p99 ms", "floor p99 ms", "heap KB/exec", "peak RSS KB/exec", "db connections", "wall s", "steal % step / tail s", "aims"],
    rows.map(({ step: s, floor, p99s }) => [
      s.runs,
      p99s.map((ms) => f(ms, 1)).join(", "),
      s.liveExecutors,
      s.peakLive,
      s.liveAtHeap,
      s.peakWaitingCalls,
      `${s.overheadMs.samples} (+${s.heapPauseTurns})`,
      f(s.latencyMs.p50 / 1000, 2),
      f(s.latencyMs.p99 / 1000, 2),
      f(s.overheadMs.p50, 1),
      f(s.overheadMs.p99, 1),
      f(floor.overheadMs.p99, 1),
      f(s.heapPerExecutor / 1024, 1),
      f(s.rssPerExecutor / 1024, 1),
      s.connections,
      f(s.wallMs / 1000, 1),
      stealCell([s.machine]),
      misses(s).length ? `MISSED: ${misses(s).join(", ")}` : "met",
    ]),
  );
  for (const { step } of rows) console.log(`  ${step.runs} runs, ${describeTail(step.tail)}\n    ${describePhases(step.phases)}\n    ${describeMachine(step.machine)}`);
  const best = rows.filter((r) => misses(r.step).length === 0).at(-1);
  const count = best?.step.peakLive ?? 0;
  console.log(
    `\n  Most live executors at once meeting every aim: ${best ? `${count} (${best.step.runs} runs)` : "none of the sizes tried"}` +
      ` against the aim of >= ${AIM.liveExecutors}: ${count >= AIM.liveExecutors ? "met" : "MISSED"}; sizes tried: ${runs.join(", ")} runs.`,
  );
  console.log(`  ${machine.atEnd(" (the bench itself adds about 1)")}`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Memory is judged on the retained heap: peak RSS also counts garbage not yet collected and pages V8 keeps. */
function misses(s: CapacityStep): string[] {
  return [
    s.overheadMs.p99 > AIM.p99Ms ? "p99" : "",
    !(s.heapPerExecutor <= AIM.bytesPerExecutor) ? "heap" : "",
    s.connections > CONNECTION_BOUND ? "connections" : "",
  ].filter(Boolean);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
