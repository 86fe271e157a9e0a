import { sql } from "kysely";
import { Runtime } from "../actors/index.ts";
import type { Database } from "../db/index.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { createRunGovernance } from "../governance/index.ts";
import { ScriptedModel } from "../models/index.ts";
import { type BuildRuntime, runWorker, submitRun } from "../runs/index.ts";
import { ToolRegistry } from "../tools/index.ts";
import { DrawnLatencyModel, type LatencySpec, drawLatency, logNormal } from "./capacityLatency.ts";
import { type MachineReport, watchMachine } from "./capacityMachine.ts";
import { retainedHeap, retainedHeapWhen } from "./capacityMemory.ts";
import { type PhaseReport, watchPhases } from "./capacityPhases.ts";
import { type TailReport, tailOf, watchTail } from "./capacityTail.ts";
import { percentile } from "./overheadProbe.ts";
import { CHILDREN, CHILD_TURNS, TurnMarks, executorKey, isMain, noopLookup, overheadPolicy } from "./overheadScenario.ts";

/** Output tokens a reply reports: log-normal, median 400, p99 4,000 (what the run's budget is charged). */
const OUTPUT_TOKENS = { median: 400, p99: 4000 };

export interface CapacityStep {
  runs: number;
  /** Executors the step's runs have (runs x (Main + CHILDREN)). */
  liveExecutors: number;
  /** Most executors admitted and not ended at once, as the log says (a worker pacing its takes may never hold them all). */
  peakLive: number;
  /** Executors admitted and not ended when the heap was taken (what it is divided by). */
  liveAtHeap: number;
  /** Most model calls waiting on their latency at once. */
  peakWaitingCalls: number;
  /** Drawn model latencies (ms, scaled): p50 and p99 of what was waited. */
  latencyMs: { p50: number; p99: number };
  /** Per Child turn: from a model reply's return to the Child's next model call (ms). */
  overheadMs: { p50: number; p99: number; samples: number };
  /** Child turns left out of overheadMs: those that waited on the heap measurement's forced full collection. */
  heapPauseTurns: number;
  /** Every Child turn's overhead (ms), for a caller that pools several processes' samples. */
  overheadSamplesMs: number[];
  /** Peak RSS over the step, less what the process held before it, per live executor (bytes). */
  rssPerExecutor: number;
  /** Heap reachable after a full collection once the Children are mid-way, less before the step, per executor live then (bytes). */
  heapPerExecutor: number;
  /** Most connections to the bench database at once (pg_stat_activity), sampled through the step. */
  connections: number;
  /** Where the turns at or above p99 went (collection pauses inside them, the loop's lateness). */
  tail: TailReport;
  /** Each Child turn split into its phases (bench/capacityPhases.ts): to the reservation, the reservation, the commit wait; the append beside. */
  phases: PhaseReport;
  /** What the machine did over the step (steal, CPU and I/O pressure), and in the seconds of the turns at or above p99. */
  machine: MachineReport;
  wallMs: number;
}

/**
 * One capacity step: `runs` overhead-scenario runs (Main delegates CHILDREN
 * Children, each takes CHILD_TURNS turns) submitted at once and hosted by one
 * worker as `ariadne worker` hosts them (lease, heartbeat, fenced store, the
 * run governance), the scripted model answering after a drawn latency. With
 * `submit: false` the runs are already submitted (by a parent that shares them
 * among worker processes) and this worker takes `runs` of them.
 */
export async function runCapacityStep(
  database: Database,
  store: EventStore,
  { runs, latency, sampleMs = 250, submit = true, admitBusy }: { runs: number; latency: LatencySpec; sampleMs?: number; submit?: boolean; admitBusy?: number },
): Promise<CapacityStep> {
  const outputTokens = logNormal({ ...OUTPUT_TOKENS, seed: latency.seed + 1 });
  const scripted = new ScriptedModel({
    name: "capacity-bench",
    policy: overheadPolicy(new TurnMarks()),
    keepRequests: false,
    // Input tokens from the messages' plain JSON (estimateUsage would memoise every message's canonical text, which no real model does).
    usage: (request) => ({ inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4), outputTokens: Math.round(outputTokens()) }),
  });
  const model = new DrawnLatencyModel(scripted, drawLatency(latency), (request) => (isMain(request) ? null : executorKey(request)));
  const tools = new ToolRegistry().register(noopLookup);
  // Executors admitted and not yet ended, as the log says: the heap is divided by those live when it is taken.
  let live = 0;
  let peakLive = 0;
  const onEvent = (event: RecordedEvent) => {
    if (event.type === "executor_admitted") peakLive = Math.max(peakLive, ++live);
    else if (event.type === "settled" || event.type === "failed" || event.type === "cancelled") live--;
  };
  const phases = watchPhases();
  const buildRuntime: BuildRuntime = (fenced, lease) =>
    new Runtime({
      onEvent,
      store: phases.store(fenced),
      models: { main: model, child: model },
      modelNames: { main: "bench-main", child: "bench-child" },
      tools,
      governance: ({ post }) => phases.governance(createRunGovernance({ db: fenced.database, post, epoch: lease.epoch })),
    });
  if (submit) for (let i = 0; i < runs; i++) await submitRun(store, { question: `Capacity bench ${process.pid} ${runs}/${i}` });

  const heapBefore = retainedHeap();
  const before = process.memoryUsage();
  let peak = { rss: before.rss };
  // Executors live and mid-way: Children on average half their turns taken (Mains wait on them).
  let liveAtHeap = 0;
  const retained = retainedHeapWhen(() => model.overheadsMs.length >= (runs * CHILDREN * (CHILD_TURNS - 1)) / 2, () => (liveAtHeap = live));
  let connections = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, m.rss) };
    void countConnections(database).then((n) => (connections = Math.max(connections, n)), () => {});
  }, sampleMs);
  const tail = watchTail();
  const machineWatch = watchMachine();
  let machine: ReturnType<typeof machineWatch.stop> | undefined;
  const started = performance.now();
  try {
    const { results } = await runWorker({ database, store, buildRuntime, concurrency: runs, pollMs: 100, idleExitMs: 500, admission: { busy: admitBusy } });
    const failed = results.filter((r) => r.kind !== "finished" || r.outcome.kind !== "answer");
    if (results.length !== runs || failed.length) throw new Error(`capacity bench: ${results.length} of ${runs} runs hosted, ${failed.length} without an answer`);
  } finally {
    clearInterval(sampler);
    retained.stop();
    tail.stop();
    machine = machineWatch.stop();
  }
  const wallMs = performance.now() - started;
  // Turns that waited on the heap measurement's forced collection are the bench's, not the runtime's.
  const pause = retained.pause();
  const kept = model.overheadsMs.map((_, i) => i).filter((i) => {
    const at = model.overheadsAtMs[i];
    return pause === null || at <= pause.fromMs || at - model.overheadsMs[i] >= pause.toMs;
  });
  const overheads = kept.map((i) => model.overheadsMs[i]);
  const p99 = percentile(overheads, 99);
  const tailTurns = kept.filter((i) => model.overheadsMs[i] >= p99).map((i) => [model.overheadsAtMs[i] - model.overheadsMs[i], model.overheadsAtMs[i]] as const);
  return {
    runs,
    liveExecutors: runs * (1 + CHILDREN),
    peakLive,
    liveAtHeap,
    peakWaitingCalls: model.peakWaiting,
    latencyMs: { p50: percentile(model.latenciesMs, 50), p99: percentile(model.latenciesMs, 99) },
    overheadMs: { p50: percentile(overheads, 50), p99, samples: overheads.length },
    heapPauseTurns: model.overheadsMs.length - overheads.length,
    overheadSamplesMs: overheads,
    rssPerExecutor: (peak.rss - before.rss) / (runs * (1 + CHILDREN)),
    heapPerExecutor: ((retained.bytes() ?? Number.NaN) - heapBefore) / liveAtHeap,
    connections,
    phases: phases.report(),
    machine: machine!.report(tailTurns),
    tail: tailOf(kept.map((i) => ({ ms: model.overheadsMs[i], atMs: model.overheadsAtMs[i] })), p99, tail.pauses, pause, tail.loopLateMs(), tail.youngKb()),
    wallMs,
  };
}

/** `--admit-busy=X`: the worker's admission gate (runs/host/admissionGate.ts; 1 turns it off); undefined leaves the worker's default. */
export function admitBusyOption(argv: readonly string[]): number | undefined {
  const text = argv.find((a) => a.startsWith("--admit-busy="))?.slice("--admit-busy=".length);
  if (text === undefined) return undefined;
  const busy = Number(text);
  if (!(busy > 0 && busy <= 1)) throw new Error(`capacity: --admit-busy must be a number in (0, 1], not "${text}"`);
  return busy;
}

/** Connections to this database, the sampler's own included (it is one of the pool's). */
export async function countConnections(database: Database): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()`.execute(database.db);
  return Number(rows[0].n);
}
