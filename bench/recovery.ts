import { pathToFileURL } from "node:url";
import { foldExecutor } from "../actors/fold/executorMachine.ts";
import { type NewEvent, eventsByStream } from "../events/index.ts";
import { type BenchEngine, openBenchPostgres } from "./overheadEngines.ts";
import { renderAdmission } from "../actors/request/renderTexts.ts";

/**
 * Recovery speed: rebuild RUNS runs x EXECUTORS executors x EVENTS events each
 * on PostgreSQL (read every run's events, parse them, fold every executor
 * through its machine, as a resume does before it goes on), against a plain
 * sequential read of the same rows with the same query in the same process.
 * Prints events/s, seconds, the ratio (aim >= 0.5x the raw read) and peak memory;
 * the three reads take turns for RECOVERY_ROUNDS rounds (3), and each figure is a median.
 *
 *   node --import tsx bench/recovery.ts          (RECOVERY_RUNS=100 for a quick look)
 */
const RUNS = Number(process.env.RECOVERY_RUNS ?? 1000);
const EXECUTORS = 5;
const EVENTS = 40; // executor_admitted + 13 x (turn, tool_called, tool_completed)
const AIM = 0.5;
/** Folding costs at most a tenth on top of reading and parsing. */
const PARSE_AIM = 0.9;
/** Rounds of the three timed reads; each figure is its median. */
const ROUNDS = Number(process.env.RECOVERY_ROUNDS ?? 3);

export async function main(): Promise<void> {
  const bench = await openBenchPostgres();
  try {
    console.log(`· recovery bench: ${RUNS} runs x ${EXECUTORS} executors x ${EVENTS} events = ${RUNS * EXECUTORS * EVENTS} events; ${bench.describe}`);
    const runIds = await seed(bench);
    console.log(`· seeded; warming up`);
    await rebuild(bench, runIds.slice(0, 20));
    await rawRead(bench, runIds.slice(0, 20));

    // The three reads take turns, ROUNDS times, each round starting with the next of them, and each keeps its
    // median: one pass each in a fixed order put whatever else the machine was doing (and the garbage the pass
    // before left) on one side of the ratio (0.81-1.23x in four runs of one hour).
    const memory = peakMemory();
    const reads = {
      rebuilt: () => rebuild(bench, runIds),
      raw: () => rawRead(bench, runIds),
      parsed: () => readParsed(bench, runIds),
    };
    const order = Object.keys(reads) as (keyof typeof reads)[];
    const times = { raw: [] as number[], parsed: [] as number[], rebuilt: [] as number[] };
    const counts = { raw: 0, parsed: 0, rebuilt: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < order.length; k++) {
        const name = order[(round + k) % order.length];
        const { value, ms } = await timed(reads[name]);
        times[name].push(ms);
        counts[name] = value;
      }
    }
    const peak = memory.stop();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const rebuilt = { value: counts.rebuilt, ms: median(times.rebuilt) };
    const raw = { value: counts.raw, ms: median(times.raw) };
    const parsed = { value: counts.parsed, ms: median(times.parsed) };
    const verified = await timed(() => verifyAll(bench, runIds));

    const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
    const rows = [
      ["plain sequential read (pg, same query, no parsing)", raw.value, raw.ms],
      ["read and parse only (store.readRun: zod, upcast)", parsed.value, parsed.ms],
      ["rebuild: read, parse, fold every executor", rebuilt.value, rebuilt.ms],
      ["verify every stream's hash chain (resume does this first)", verified.value, verified.ms],
    ] as const;
    console.log(`  medians of ${ROUNDS} rounds, the three reads taking turns (each round starts with the next); verify once`);
    for (const [name, n, ms] of rows) console.log(`  ${name.padEnd(60)} ${String(rate(n, ms)).padStart(8)} events/s  ${(ms / 1000).toFixed(1).padStart(6)} s`);
    const each = (xs: number[], n: number) => xs.map((ms) => rate(n, ms)).join(", ");
    console.log(`  each round, events/s: rebuild ${each(times.rebuilt, counts.rebuilt)}; read and parse ${each(times.parsed, counts.parsed)}; plain read ${each(times.raw, counts.raw)}`);
    const ratio = rate(rebuilt.value, rebuilt.ms) / rate(raw.value, raw.ms);
    console.log(`  rebuild / raw read: ${ratio.toFixed(2)}x (aim >= ${AIM}x) ${ratio >= AIM ? "ok" : "BELOW AIM"}`);
    const folded = rate(rebuilt.value, rebuilt.ms) / rate(parsed.value, parsed.ms);
    console.log(`  rebuild / read and parse: ${folded.toFixed(2)}x (aim >= ${PARSE_AIM}x) ${folded >= PARSE_AIM ? "ok" : "BELOW AIM"}`);
    console.log(`  peak memory over the rounds (rebuilds and reads): rss ${mb(peak.rss)} MB, heap ${mb(peak.heap)} MB`);
  } finally {
    await bench.close();
  }
}

/** Writes the runs through the store (so chains are real), several streams at once. */
async function seed(bench: BenchEngine): Promise<string[]> {
  const runIds = Array.from({ length: RUNS }, (_, i) => `recovery-${process.pid}-${i}`);
  const jobs = runIds.flatMap((runId) => Array.from({ length: EXECUTORS }, (_, x) => ({ runId, executorId: `${runId}-x${x}`, main: x === 0 })));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let j = jobs[next++]; j; j = jobs[next++]) await bench.store.append(`executor-${j.executorId}`, 0, executorEvents(j));
    }),
  );
  return runIds;
}

function executorEvents(j: { runId: string; executorId: string; main: boolean }): NewEvent[] {
  const metadata = { runId: j.runId, executorId: j.executorId };
  const events: NewEvent[] = [
    {
      type: "executor_admitted",
      data: {
        role: j.main ? "main" : "child",
        parentExecutorId: j.main ? null : `${j.runId}-x0`,
        parentToolUseId: j.main ? null : "toolu_delegate",
        depth: j.main ? 0 : 1,
        task: { question: "How much does ADIV overlap with the portfolio?", context: "bench", doneWhen: "bench" },
        profile: null,
        grantedTools: ["noop_lookup"],
        refusedTools: [],
        model: "bench",
        limits: { maxTurns: 40, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
        ...renderAdmission({ role: j.main ? "main" : "child", task: { question: "How much does ADIV overlap with the portfolio?", context: "bench", doneWhen: "bench" } }),
        offered: null,
      },
      metadata,
    },
  ];
  for (let turn = 1; events.length < EVENTS; turn++) {
    const toolUseId = `toolu_${turn}`;
    events.push(
      {
        type: "turn",
        data: {
          turn,
          request: { model: "bench", messageCount: 2 * turn - 1, toolNames: ["noop_lookup"], digest: "0".repeat(64) },
          response: {
            content: [
              { type: "text", text: `Looking up key ${turn} to compare the holdings lists.` },
              { type: "tool_use", id: toolUseId, name: "noop_lookup", input: { key: `k${turn}` } },
            ],
            stopReason: "tool_use",
          },
          usage: { inputTokens: 900 + turn * 40, outputTokens: 60 },
          model: "bench",
          provider: "scripted",
          scripted: true,
          latencyMs: 0,
        },
        metadata,
      },
      { type: "tool_called", data: { turn, toolUseId, tool: "noop_lookup", input: { key: `k${turn}` }, effect: "read_only" }, metadata },
      { type: "tool_completed", data: { toolUseId, tool: "noop_lookup", output: JSON.stringify({ key: `k${turn}`, value: "x".repeat(200) }) }, metadata },
    );
  }
  return events;
}

/** What a resume does before it goes on: every event of the run, parsed, folded per executor. */
async function rebuild(bench: BenchEngine, runIds: string[]): Promise<number> {
  let n = 0;
  for (const runId of runIds) {
    // Grouped as resumeRun groups them.
    for (const events of eventsByStream(await bench.store.readRun(runId)).values()) {
      const fold = foldExecutor(events);
      if (fold.state.turn !== (EVENTS - 1) / 3) throw new Error(`rebuilt ${events[0].streamId} to turn ${fold.state.turn}`);
      n += events.length;
    }
  }
  return n;
}

async function readParsed(bench: BenchEngine, runIds: string[]): Promise<number> {
  let n = 0;
  for (const runId of runIds) n += (await bench.store.readRun(runId)).length;
  return n;
}

async function rawRead(bench: BenchEngine, runIds: string[]): Promise<number> {
  let n = 0;
  for (const runId of runIds) {
    const r = (await bench.raw("SELECT * FROM ariadne_events WHERE run_id = $1 ORDER BY global_position", [runId])) as { rows: unknown[] };
    n += r.rows.length;
  }
  return n;
}

async function verifyAll(bench: BenchEngine, runIds: string[]): Promise<number> {
  let n = 0;
  for (const runId of runIds) {
    for (let x = 0; x < EXECUTORS; x++) {
      const v = await bench.store.verify(`executor-${runId}-x${x}`);
      if (!v.ok) throw new Error(v.reason);
      n += v.count;
    }
  }
  return n;
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t };
}

function peakMemory() {
  const peak = { rss: 0, heap: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed);
  };
  const timer = setInterval(sample, 20);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
