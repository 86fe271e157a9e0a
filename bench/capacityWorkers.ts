import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { EventStore } from "../events/index.ts";
import { submitRun } from "../runs/index.ts";
import { type LatencySpec, describeLatency, latencyFlags } from "./capacityLatency.ts";
import { REPORT_PREFIX, V8_THREADS_NORMAL, type WorkerMessage, type WorkerReport } from "./capacityWorker.ts";
import { openBenchPostgres } from "./overheadEngines.ts";
import { percentile } from "./overheadProbe.ts";
import { f, table } from "./overheadReport.ts";
import { CHILDREN, CHILD_TURNS } from "./overheadScenario.ts";
import { describeMachine, stealCell } from "./capacityMachine.ts";
import { middleByP99 } from "./capacityMedian.ts";
import { describePhases } from "./capacityPhases.ts";
import { describeTail } from "./capacityTail.ts";
import { progress, readMachine, repeatFlag } from "./progress.ts";

/**
 * `npm run bench -- capacity --workers=K`: the capacity of K worker processes
 * on one PostgreSQL against one worker process, measured in the same run.
 *
 * For each size N (runs per process, `--runs` or the size's list), two steps:
 * one worker process hosting N runs, then K worker processes hosting N runs
 * each (K x N at once). Every worker is a child process
 * (bench/capacityWorker.ts), pinned with `taskset -c k` to core k (mod the
 * machine's cores) when taskset is there, so one worker has one core's budget
 * and K workers have K. PostgreSQL is not pinned: its backends run on any core,
 * beside the workers. This parent submits the step's runs to the shared
 * scratch database, releases the workers together, and pools their per-Child-
 * turn overhead samples (from a model reply's return to the Child's next
 * call, as DrawnLatencyModel measures) into one p50/p99.
 *
 * Each step is taken --repeat times (3 by default) on a database of its own,
 * one worker and K workers alternating, each first in turn, so a drift of the
 * machine falls on both; a configuration's row
 * at a size is its run whose pooled p99 is the median, every run's p99 beside it.
 *
 * Capacity, for a configuration: the most live executors at once, among the
 * sizes tried, whose pooled p99 overhead is <= 50 ms with every smaller size
 * tried meeting it as well. The capacity ratio is K
 * workers' capacity over one worker's (aim, issue 19: >= 1.8 for K = 2). Each
 * size's row also sets K workers' p99 at K x N beside one worker's at N.
 */
const WORKER_SIZES = { quick: [100, 200], full: [100, 200, 300, 400] } as const;
const P99_AIM_MS = 50;
const RATIO_AIM = 1.8;

export interface WorkersOptions {
  workers: number;
  /** Runs per worker process, one step per entry. */
  runs: number[];
  latency: LatencySpec;
  /** Flags each worker process gets as given (--admit-busy). */
  passOn: string[];
  /** Runs of each step; a row is the median one by p99. */
  repeat: number;
  /**
   * Node's own flags for each worker process (`--node-flag=<flag>`, repeatable):
   * those V8 takes only at start, which `ariadne worker` cannot set on itself
   * (`--single-threaded-gc` set at run time aborts V8 at a later collection,
   * and NODE_OPTIONS refuses it).
   */
  nodeFlags: string[];
}

/** `--workers=K` (K >= 2); `--size=quick|full` or `--runs=N[,N...]` as runs per process; the latency flags as capacityLatency.ts reads them. */
export function workersOptions(argv: readonly string[], latency: LatencySpec): WorkersOptions | null {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const given = flag("workers");
  if (given === undefined) {
    // The one-process bench runs in this process: its node flags are the ones this process was started with.
    if (argv.some((a) => a.startsWith("--node-flag="))) throw new Error("capacity: --node-flag starts worker processes, so it needs --workers=K; for one process, start the bench itself with node <flag>");
    return null;
  }
  const workers = Number(given);
  if (!Number.isInteger(workers) || workers < 2) throw new Error(`capacity: --workers must be an integer >= 2 (it is compared with one worker), not "${given}"`);
  const size = flag("size") ?? "quick";
  if (!(size in WORKER_SIZES)) throw new Error(`capacity: --size must be quick or full, not "${size}"`);
  const runs = flag("runs")?.split(",").map(Number) ?? [...WORKER_SIZES[size as keyof typeof WORKER_SIZES]];
  if (runs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`capacity: --runs must be positive integers, comma-separated, not "${flag("runs")}"`);
  const nodeFlags = argv.filter((a) => a.startsWith("--node-flag=")).map((a) => a.slice("--node-flag=".length));
  if (nodeFlags.some((f) => !f.startsWith("--"))) throw new Error(`capacity: --node-flag takes one of node's flags, starting with --, not "${nodeFlags.find((f) => !f.startsWith("--"))}"`);
  return {
    workers,
    runs,
    latency,
    passOn: argv.filter((a) => a.startsWith("--admit-busy=") || a === "--v8-defaults" || a === V8_THREADS_NORMAL),
    repeat: repeatFlag(argv, "capacity"),
    nodeFlags,
  };
}

interface WorkersStep {
  processes: number;
  runsPerProcess: number;
  live: number;
  reports: WorkerReport[];
  p50: number;
  p99: number;
  samples: number;
  wallMs: number;
  /** CPU the PostgreSQL server used over the step (ms), or NaN when /proc cannot tell. */
  postgresCpuMs: number;
  /** The pooled p99 of every run of this step, in the order taken (the row is the median one). */
  p99s: number[];
}

export async function mainWorkers({ workers, runs, latency, passOn, repeat, nodeFlags }: WorkersOptions): Promise<void> {
  const started = performance.now();
  const machine = readMachine();
  const { cpus } = machine;
  const pinned = spawnSync("taskset", ["-c", "0", "true"]).status === 0;
  const cores = (k: number) => Array.from({ length: k }, (_, i) => i % cpus);
  progress(`capacity bench, worker processes: runs of Main + ${CHILDREN} Children x ${CHILD_TURNS} turns; per size N, 1 worker process at N runs, then ${workers} at N runs each; ${describeLatency(latency)}`);
  progress(machine.atStart);
  progress(
    pinned
      ? `pinning: each worker process with taskset -c to its own core (1 worker: core 0; ${workers} workers: cores ${cores(workers).join(", ")}); PostgreSQL and this parent are not pinned and share every core`
      : "pinning: taskset is not available, worker processes are NOT pinned (each may use any core); PostgreSQL shares every core",
  );
  progress(`worker processes started as node ${nodeFlags.length ? nodeFlags.join(" ") : "(no flags of node's own)"}; ${describeV8Threads(passOn.includes(V8_THREADS_NORMAL))}`);
  if (workers > cpus) progress(`note: ${workers} workers on ${cpus} cores: some share a core`);
  const rows: { n: number; one: WorkersStep; many: WorkersStep }[] = [];
  let described = false;
  /** One step on a database of its own: a step after many others would otherwise pay for their log (p99 rose step by step on one database). */
  const step = async (processes: number, n: number, label: string): Promise<WorkersStep> => {
    const bench = await openBenchPostgres();
    try {
      if (!described) progress(`postgres: ${bench.describe}; every step on a fresh database`);
      described = true;
      progress(label);
      const taken = await workersStep(bench.store, bench.url!, { processes, runsPerProcess: n, latency, passOn, nodeFlags, pinned, cores: cores(processes) });
      progress(`  ${stepLine(taken)}`);
      for (const line of whereTheTailWent(taken)) progress(`  ${line}`);
      return taken;
    } finally {
      await bench.close();
    }
  };
  const median = (taken: WorkersStep[]): WorkersStep => ({ ...middleByP99(taken, (s) => s.p99), p99s: taken.map((s) => s.p99) });
  for (const n of runs) {
    const ones: WorkersStep[] = [];
    const manys: WorkersStep[] = [];
    for (let i = 1; i <= repeat; i++) {
      const of = repeat === 1 ? "" : `, run ${i} of ${repeat}`;
      const one = () => step(1, n, `${n} runs (${n * (1 + CHILDREN)} live executors) on 1 worker process${of}`).then((s) => void ones.push(s));
      const many = () => step(workers, n, `${workers} x ${n} runs (${workers * n * (1 + CHILDREN)} live executors) on ${workers} worker processes${of}`).then((s) => void manys.push(s));
      // Which configuration goes first alternates, so neither always follows the other.
      for (const take of i % 2 === 1 ? [one, many] : [many, one]) await take();
    }
    rows.push({ n, one: median(ones), many: median(manys) });
  }

  console.log(`\nCapacity of ${workers} worker processes against 1, one PostgreSQL (aim: ${workers} carry >= ${RATIO_AIM}x one's live executors at p99 <= ${P99_AIM_MS} ms)`);
  console.log(`  each row the median of ${repeat} run${repeat === 1 ? "" : "s"} by pooled p99 (one worker and ${workers} alternating, each first in turn), every run's p99 in the last column; every step on a fresh database`);
  console.log(`  overhead: from a model reply to the Child's next call, pooled over the step's processes`);
  console.log(
    `  worker processes started as node ${nodeFlags.length ? nodeFlags.join(" ") : "(no flags of node's own)"}; ${describeV8Threads(passOn.includes(V8_THREADS_NORMAL), rows.flatMap((r) => [...r.one.reports, ...r.many.reports].map((w) => w.v8ThreadsLowered)))}; ${pinned ? `each pinned to one core (taskset -c); ` : "NOT pinned (no taskset); "}PostgreSQL unpinned on all ${cpus} cores; worker CPU: each process's user+system over its wall time;` +
      ` postgres CPU: the whole server's (every database, from /proc), so other work on the server counts too\n`,
  );
  const cell = (s: WorkersStep) => [s.processes, s.runsPerProcess * s.processes, s.live, s.samples, f(s.p50, 1), f(s.p99, 1), f(Math.max(...s.reports.map((r) => percentile(r.overheadSamplesMs, 99))), 1)];
  table(
    ["worker procs", "runs", "live executors", "turns", "p50 ms", "p99 ms", "worst proc p99 ms", "turns/s", "worker CPU %", "postgres CPU %", "heap KB/exec", "max RSS MB/proc", "wall s", "steal % step / tail s", "p99 <= 50", "p99 of each run ms"],
    rows.flatMap(({ one, many }) =>
      [one, many].map((s) => [
        ...cell(s),
        f(s.samples / (s.wallMs / 1000), 0),
        s.reports.map((r) => f((100 * r.cpuMs) / r.wallMs, 0)).join("/"),
        f((100 * s.postgresCpuMs) / s.wallMs, 0),
        f(mean(s.reports.map((r) => r.heapPerExecutor)) / 1024, 1),
        f(Math.max(...s.reports.map((r) => r.maxRssKb)) / 1024, 0),
        f(s.wallMs / 1000, 1),
        stealCell(s.reports.map((r) => r.machine)),
        s.p99 <= P99_AIM_MS ? "yes" : "no",
        s.p99s.map((p) => f(p, 1)).join(" / "),
      ]),
    ),
  );
  console.log("  steal: CPU time the hypervisor gave other guests, over the step and in the seconds of the slowest turns (the worst process's); see each process's machine line below");
  console.log("\n  Where each row's slowest turns went, process by process (collection pauses and the loop's lateness; each turn's phases):");
  for (const { one, many } of rows) for (const s of [one, many]) for (const line of whereTheTailWent(s)) console.log(`  ${s.processes} x ${s.runsPerProcess} runs, ${line}`);
  console.log(`\n  Same runs per process: ${workers} processes at ${workers} x N against 1 process at N`);
  table(
    ["N runs/proc", "1 proc p99 ms", `${workers} procs p99 ms`, "p99 ratio", "1 proc turns/s", `${workers} procs turns/s`, "turns/s ratio"],
    rows.map(({ n, one, many }) => {
      const t1 = one.samples / (one.wallMs / 1000);
      const tk = many.samples / (many.wallMs / 1000);
      return [n, f(one.p99, 1), f(many.p99, 1), `${f(many.p99 / one.p99, 2)}x`, f(t1, 0), f(tk, 0), `${f(tk / t1, 2)}x`];
    }),
  );
  // Sizes in increasing order, up to the first that misses: a smaller size missing where a larger met is noise, not capacity.
  const capacity = (pick: (r: (typeof rows)[number]) => WorkersStep) => {
    let live = 0;
    for (const s of rows.map(pick).sort((a, b) => a.live - b.live)) {
      if (s.p99 > P99_AIM_MS) break;
      live = s.live;
    }
    return live;
  };
  const c1 = capacity((r) => r.one);
  const ck = capacity((r) => r.many);
  const ratio = c1 > 0 ? ck / c1 : Number.NaN;
  console.log(
    `\n  Capacity (most live executors at pooled p99 <= ${P99_AIM_MS} ms, every smaller size tried meeting it too): 1 process ${c1 || "none"}, ${workers} processes ${ck || "none"}` +
      `; ratio ${c1 > 0 ? `${f(ratio, 2)}x` : "n/a (one process met the p99 at no size tried)"} (aim >= ${RATIO_AIM}x: ${c1 > 0 && ratio >= RATIO_AIM ? "met" : c1 > 0 ? "MISSED" : "not decided"})`,
  );
  console.log(
    "  one slow moment (a checkpoint's fsync, a collection) lands on every Child whose reply comes then; repeat a step before reading much into one p99",
  );
  console.log(`  sizes tried: ${runs.join(", ")} runs per process, ${describeLatency(latency)}; a size grid bounds the ratio's resolution (try --runs=...)`);
  console.log(`  ${machine.atEnd(" (the bench itself adds about 1)")}`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function workersStep(
  store: EventStore,
  url: string,
  {
    processes,
    runsPerProcess,
    latency,
    passOn,
    nodeFlags,
    pinned,
    cores,
  }: { processes: number; runsPerProcess: number; latency: LatencySpec; passOn: string[]; nodeFlags: string[]; pinned: boolean; cores: number[] },
): Promise<WorkersStep> {
  const script = fileURLToPath(new URL("./capacityWorker.ts", import.meta.url));
  const children = cores.map((core, i) => {
    // Each process draws its own latencies: the same spec, its own seed.
    const flags = latencyFlags({ ...latency, seed: latency.seed + 1000 * (i + 1) });
    const node = [process.execPath, ...nodeFlags, "--import", "tsx", script, `--url=${url}`, `--runs=${runsPerProcess}`, ...flags, ...passOn];
    const [command, ...args] = pinned ? ["taskset", "-c", String(core), ...node] : node;
    return watch(spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] }));
  });
  try {
    await Promise.all(children.map((c) => c.ready));
    const total = processes * runsPerProcess;
    for (let i = 0; i < total; i++) await submitRun(store, { question: `Capacity bench workers ${process.pid} ${processes}x${runsPerProcess}/${i}` });
    const cpuBefore = postgresCpuMs();
    const started = performance.now();
    for (const c of children) c.process.stdin!.write("go\n");
    const reports = await Promise.all(children.map((c) => c.report));
    const wallMs = performance.now() - started;
    await Promise.all(children.map((c) => c.exited));
    const hosted = reports.reduce((n, r) => n + r.runs, 0);
    if (hosted !== total) throw new Error(`capacity bench: ${hosted} of ${total} runs hosted`);
    const samples = reports.flatMap((r) => r.overheadSamplesMs);
    return {
      processes,
      runsPerProcess,
      live: total * (1 + CHILDREN),
      reports,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      samples: samples.length,
      wallMs,
      postgresCpuMs: postgresCpuMs() - cpuBefore,
      p99s: [],
    };
  } finally {
    for (const c of children) if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill();
  }
}

/** A worker child's protocol on stdout: ready, then its report (or an error). */
function watch(child: ChildProcess) {
  let onReady: () => void;
  let onReport: (r: WorkerReport) => void;
  let fail: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((onReady = resolve), (fail = reject)));
  const report = new Promise<WorkerReport>((resolve, reject) => {
    onReport = resolve;
    const before = fail;
    fail = (e) => (before(e), reject(e));
  });
  // Whichever is not awaited when a child fails must not be an unhandled rejection.
  ready.catch(() => {});
  report.catch(() => {});
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith(REPORT_PREFIX)) return void console.log(`  [worker ${child.pid}] ${line}`);
    const message = JSON.parse(line.slice(REPORT_PREFIX.length)) as WorkerMessage;
    if ("ready" in message) onReady();
    else if ("report" in message) onReport(message.report);
    else fail(new Error(`worker ${child.pid} failed: ${message.error}`));
  });
  const exited = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      fail(new Error(`worker ${child.pid} exited (${signal ?? code}) before it reported`));
      resolve();
    }),
  );
  child.on("error", (e) => fail(e));
  return { process: child, ready, report, exited };
}

/**
 * CPU the PostgreSQL server has used (ms): the postmaster's own and its reaped
 * children's (backends that ended), plus every live postgres process's. Read
 * from /proc; NaN where that is not readable.
 */
function postgresCpuMs(): number {
  try {
    const tick = 1000 / 100; // USER_HZ is 100 on Linux
    let ms = 0;
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      if (!stat.includes("(postgres)")) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
      const postmaster = fields[1] === "1" || !readFileSync(`/proc/${fields[1]}/stat`, "utf8").includes("(postgres)");
      ms += (utime + stime + (postmaster ? cutime + cstime : 0)) * tick;
    }
    return ms;
  } catch {
    return Number.NaN;
  }
}

/** A step's figures as it ends, so a bench cut short keeps them. */
const stepLine = (s: WorkersStep) =>
  `${s.live} live, p50 ${f(s.p50, 1)} ms, p99 ${f(s.p99, 1)} ms (worst process ${f(Math.max(...s.reports.map((r) => percentile(r.overheadSamplesMs, 99))), 1)}), ` +
  `worker CPU ${s.reports.map((r) => f((100 * r.cpuMs) / r.wallMs, 0)).join("/")} %, postgres CPU ${f((100 * s.postgresCpuMs) / s.wallMs, 0)} %, wall ${f(s.wallMs / 1000, 1)} s`;

/** Per worker process: its collection pauses and loop lateness in its slowest turns, its turns' phases, and the machine in its slowest turns' seconds. */
const whereTheTailWent = (s: WorkersStep): string[] =>
  s.reports.flatMap((r) => [`process ${r.pid}: ${describeTail(r.tail)}; ${describePhases(r.phases)}`, `  process ${r.pid}, ${describeMachine(r.machine)}`]);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** How V8's platform threads ran: lowered as `ariadne worker` lowers them, or left (--v8-threads=normal); with the counts each process lowered. */
export function describeV8Threads(normal: boolean, lowered: readonly number[] = []): string {
  if (normal) return `V8's platform threads at node's priority (${V8_THREADS_NORMAL})`;
  const counts = [...new Set(lowered)];
  return `V8's platform threads at nice 19 as \`ariadne worker\` puts them (cli/v8Threads.mjs)${counts.length ? `, ${counts.join(" or ")} a process` : ""}`;
}
