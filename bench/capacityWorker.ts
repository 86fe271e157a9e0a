import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { openStore } from "../events/openStore.ts";
import { setV8FlagsFor } from "../cli/v8Flags.mjs";
import { lowerV8ThreadsFor } from "../cli/v8Threads.mjs";
import { latencyOptions } from "./capacityLatency.ts";
import type { MachineReport } from "./capacityMachine.ts";
import { admitBusyOption, runCapacityStep } from "./capacityRun.ts";
import type { PhaseReport } from "./capacityPhases.ts";
import type { TailReport } from "./capacityTail.ts";

/**
 * One worker process of `npm run bench -- capacity --workers=K` (spawned by
 * bench/capacityWorkers.ts, not a bench itself: it exports no main()).
 *
 *   node --import tsx bench/capacityWorker.ts --url=postgres://... --runs=N --median-ms=M --p99-ms=P --time-scale=S --seed=K
 *
 * Opens the store on the parent's scratch database, says it is ready on
 * stdout, waits for "go" on stdin (the parent has submitted every process's
 * runs by then), hosts N of them with runWorker at concurrency N as
 * runCapacityStep does, and writes its report, every Child turn's overhead
 * sample included, as one JSON line on stdout. Lines it writes start with
 * REPORT_PREFIX; anything else on stdout is not the protocol.
 */
export const REPORT_PREFIX = "@capacity-worker ";
/** The option that leaves V8's platform threads at node's priority (cli/v8Threads.mjs), to measure what lowering them does. */
export const V8_THREADS_NORMAL = "--v8-threads=normal";

export interface WorkerReport {
  pid: number;
  runs: number;
  /** Every Child turn's overhead: from a model reply to its next call (ms). */
  overheadSamplesMs: number[];
  heapPerExecutor: number;
  rssPerExecutor: number;
  /** V8's platform threads this process put at nice 19 as `ariadne worker` does (0 with --v8-threads=normal). */
  v8ThreadsLowered: number;
  /** process.resourceUsage().maxRSS at the end (KB). */
  maxRssKb: number;
  /** CPU time of this process over the step (user + system, ms). */
  cpuMs: number;
  connections: number;
  wallMs: number;
  /** Where this process's slowest turns went: collection pauses and the loop's lateness, and each turn's phases. */
  tail: TailReport;
  phases: PhaseReport;
  /** The machine over the step as this process saw it: the same machine for every worker, the seconds of its own slowest turns. */
  machine: MachineReport;
}

export type WorkerMessage = { ready: true; pid: number } | { report: WorkerReport } | { error: string };

function send(message: WorkerMessage): void {
  process.stdout.write(`${REPORT_PREFIX}${JSON.stringify(message)}\n`);
}

async function child(argv: readonly string[]): Promise<void> {
  if (!argv.includes("--v8-defaults")) setV8FlagsFor("worker");
  const v8ThreadsLowered = argv.includes(V8_THREADS_NORMAL) ? 0 : lowerV8ThreadsFor("worker").length;
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const url = flag("url");
  const runs = Number(flag("runs"));
  const latency = latencyOptions(argv);
  if (!url || !Number.isInteger(runs) || runs < 1) throw new Error(`capacityWorker: needs --url and --runs, got ${argv.join(" ")}`);
  const { store, database, close } = await openStore({ url });
  try {
    const lines = createInterface({ input: process.stdin });
    const go = new Promise<void>((resolve) => lines.on("line", (l) => l.trim() === "go" && resolve()));
    send({ ready: true, pid: process.pid });
    await go;
    lines.close();
    const cpu = process.cpuUsage();
    const step = await runCapacityStep(database, store, { runs, latency, submit: false, admitBusy: admitBusyOption(argv) });
    const used = process.cpuUsage(cpu);
    send({
      report: {
        pid: process.pid,
        runs,
        overheadSamplesMs: step.overheadSamplesMs,
        heapPerExecutor: step.heapPerExecutor,
        v8ThreadsLowered,
        rssPerExecutor: step.rssPerExecutor,
        maxRssKb: process.resourceUsage().maxRSS,
        cpuMs: (used.user + used.system) / 1000,
        connections: step.connections,
        wallMs: step.wallMs,
        tail: step.tail,
        phases: step.phases,
        machine: step.machine,
      },
    });
  } finally {
    await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  child(process.argv.slice(2)).catch((e) => {
    send({ error: (e as Error).stack ?? String(e) });
    process.exitCode = 1;
  });
}
