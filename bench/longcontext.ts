import { pathToFileURL } from "node:url";
import { Runtime } from "../actors/index.ts";
import { foldExecutor } from "../actors/fold/executorMachine.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { ScriptedModel } from "../models/index.ts";
import { ToolRegistry } from "../tools/index.ts";
import { type BenchEngine, openBenchPostgres } from "./overheadEngines.ts";
import { percentile } from "./overheadProbe.ts";
import { f, table } from "./overheadReport.ts";
import { isMain } from "./overheadScenario.ts";
import { READ_TOOL, TURNS, longcontextPolicy, readDocument } from "./longcontextScenario.ts";
import { progress, readMachine, repeatFlag } from "./progress.ts";

/**
 * A log that grows with what is new: one Child takes 100 model turns over a
 * conversation growing to about 260k tokens (notes of 0.5-2 KB and a document of
 * 2-8 KB a turn: bench/longcontextScenario.ts), on PostgreSQL, with a
 * zero-latency scripted model. Set against the new content (the task, each
 * reply's content, each tool output, once), it prints the Child's log bytes
 * (the events' JSON, and what PostgreSQL stores after compressing large
 * values), the append time of the 10th and 100th turns, and the Child's rebuild
 * (read, parse and fold its events) against reading and parsing them. Beside
 * it, the same figures for a reference store that keeps every request whole
 * (one jsonb row a turn, as a checkpointer of whole conversations does).
 * Medians of --repeat runs (3 by default).
 *
 *   npm run bench -- longcontext
 *   npm run bench -- longcontext --repeat=5
 */
const AIM = { bytesRatio: 1.2, lateAppendRatio: 1.5, rebuildRatio: 2 };
/** Turns 10 and 100 are each the median of a window of turns around them, so one slow commit does not decide. */
const WINDOW = 5;
const REBUILD_READS = 5;

interface Sample {
  newBytes: number;
  /** The executor's log bytes (payload JSON) by event type. */
  byType: Record<string, number>;
  totalTokens: number;
  log: Figures;
  reference: Figures;
}

interface Figures {
  jsonBytes: number;
  storedBytes: number;
  /** Per turn, in order (ms). */
  appendMs: number[];
  readMs: number;
  rebuildMs: number;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const repeat = repeatFlag(argv, "longcontext");
  const machine = readMachine();
  const started = performance.now();
  progress(`longcontext bench: one Child, ${TURNS} turns, tool outputs of 2-8 KB, notes of 0.5-2 KB a turn; ${repeat} runs, medians`);
  progress(machine.atStart);
  const bench = await openBenchPostgres();
  const samples: Sample[] = [];
  try {
    progress(`postgres: ${bench.describe}`);
    await bench.raw(`CREATE TABLE bench_whole_requests (id bigserial PRIMARY KEY, run integer NOT NULL, turn integer NOT NULL, request jsonb NOT NULL)`);
    for (let run = 1; run <= repeat; run++) {
      samples.push(await runOnce(bench, run));
      const s = samples.at(-1)!;
      progress(`run ${run}: ${f(s.log.jsonBytes / s.newBytes, 2)}x log bytes to new content, ${f(s.reference.jsonBytes / s.newBytes, 1)}x for whole requests`);
    }
  } finally {
    await bench.close();
  }

  const med = (pick: (s: Sample) => number) => percentile(samples.map(pick), 50);
  const late = (a: number[]) => windowMedian(a, TURNS) / windowMedian(a, 10);
  const rows = (["log", "reference"] as const).map((which) => {
    const g = (s: Sample) => s[which];
    const bytesRatio = med((s) => g(s).jsonBytes / s.newBytes);
    const lateRatio = med((s) => late(g(s).appendMs));
    const rebuildRatio = med((s) => g(s).rebuildMs / g(s).readMs);
    return [
      which === "log" ? "Ariadne's event log" : "reference: every request whole",
      f(med((s) => g(s).jsonBytes) / 1024, 0),
      f(med((s) => g(s).storedBytes) / 1024, 0),
      `${f(bytesRatio, 2)}x`,
      f(med((s) => windowMedian(g(s).appendMs, 10)), 2),
      f(med((s) => windowMedian(g(s).appendMs, TURNS)), 2),
      `${f(lateRatio, 2)}x`,
      f(med((s) => g(s).readMs), 1),
      f(med((s) => g(s).rebuildMs), 1),
      `${f(rebuildRatio, 2)}x`,
      [bytesRatio <= AIM.bytesRatio ? "" : "bytes", lateRatio <= AIM.lateAppendRatio ? "" : "append", rebuildRatio <= AIM.rebuildRatio ? "" : "rebuild"].filter(Boolean).join(", ") || "met",
    ];
  });
  console.log(
    `\nOne executor over ${TURNS} turns: ${f(med((s) => s.newBytes) / 1024, 0)} KB of new content, the last request about ${f(med((s) => s.totalTokens) / 1000, 0)}k tokens`,
  );
  console.log(`  aims: log bytes <= ${AIM.bytesRatio}x the new content; append of turn ${TURNS} <= ${AIM.lateAppendRatio}x turn 10's; rebuild <= ${AIM.rebuildRatio}x reading the events`);
  console.log(`  log JSON: the executor's events' payloads as JSON text; stored: what PostgreSQL keeps of them (pg_column_size, after compressing large values)`);
  console.log(`  append of turn N: the median of turns N-${WINDOW - 1}..N+${WINDOW - 1} (capped at ${TURNS}) of the appends that carry a turn event (for the reference, its INSERT)`);
  console.log(`  read: the executor's events read and parsed (the reference: its rows read and parsed); rebuild: read, then folded; median of ${REBUILD_READS}`);
  console.log(`  each figure the median of ${samples.length} runs\n`);
  table(["store", "log JSON KB", "stored KB", "JSON / new", "append turn 10 ms", `append turn ${TURNS} ms`, "late / early", "read ms", "rebuild ms", "rebuild / read", "aims"], rows);
  const types = Object.keys(samples[0].byType);
  console.log(`\n  Ariadne's log by event type (KB of payload JSON): ${types.map((t) => `${t} ${f(med((s) => s.byType[t] ?? 0) / 1024, 0)}`).join(", ")}`);
  console.log(`\n  ${machine.atEnd()}`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function runOnce(bench: BenchEngine, run: number): Promise<Sample> {
  const seed = 34 * 1000 + run;
  let newBytes = 0;
  let totalTokens = 0;
  const referenceMs: number[] = [];
  const policy = longcontextPolicy(seed, () => {});
  const model = new ScriptedModel({
    name: "longcontext-bench",
    keepRequests: false,
    policy: async (request, index) => {
      const reply = await policy(request, index);
      if (!isMain(request)) {
        // The reference store: the whole request, one row a turn, written before the reply is known.
        const whole = JSON.stringify(request);
        totalTokens = Math.ceil(whole.length / 4);
        const t0 = performance.now();
        await bench.raw(`INSERT INTO bench_whole_requests (run, turn, request) VALUES ($1, $2, $3::jsonb)`, [run, referenceMs.length + 1, whole]);
        referenceMs.push(performance.now() - t0);
        if (typeof reply !== "string" && !(reply instanceof Error)) newBytes += JSON.stringify(reply.content).length;
      }
      return reply;
    },
  });
  const read = readDocument(seed, (output) => (newBytes += output.length));
  const timed = timeAppends(bench.store);
  const runtime = new Runtime({
    store: timed.store,
    models: { main: model, child: model },
    modelNames: { main: "bench-main", child: "bench-child" },
    tools: new ToolRegistry().register(read),
    limits: { child: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5 } },
  });
  const handle = await runtime.startRun(`Longcontext bench ${process.pid} run ${run}`);
  const outcome = await handle.result;
  if (outcome.kind !== "answer") throw new Error(`longcontext: the run ended without an answer: ${JSON.stringify(outcome).slice(0, 400)}`);

  const events = await bench.store.readRun(handle.runId);
  const childStream = events.find((e) => e.type === "executor_admitted" && (e.data as { role: string }).role === "child")!.streamId;
  const childEvents = events.filter((e) => e.streamId === childStream);
  const turns = childEvents.filter((e) => e.type === "turn").length;
  if (turns !== TURNS) throw new Error(`longcontext: the Child took ${turns} turns, not ${TURNS}`);
  const task = (childEvents[0] as RecordedEvent<"executor_admitted">).data.task;
  newBytes += task.question.length + task.context.length + task.doneWhen.length;

  const [logBytes] = ((await bench.raw(`SELECT sum(octet_length(data::text)) AS json, sum(pg_column_size(data)) AS stored FROM ariadne_events WHERE stream_id = $1`, [childStream])) as { rows: { json: string; stored: string }[] }).rows;
  const byType = ((await bench.raw(`SELECT type, sum(octet_length(data::text)) AS json FROM ariadne_events WHERE stream_id = $1 GROUP BY type ORDER BY 2 DESC`, [childStream])) as { rows: { type: string; json: string }[] }).rows;
  const [refBytes] = ((await bench.raw(`SELECT sum(octet_length(request::text)) AS json, sum(pg_column_size(request)) AS stored FROM bench_whole_requests WHERE run = $1`, [run])) as { rows: { json: string; stored: string }[] }).rows;

  const logRead = await medianMs(() => bench.store.readStream(childStream));
  const logRebuild = await medianMs(async () => {
    const fold = foldExecutor(await bench.store.readStream(childStream));
    if (fold.state?.turn !== TURNS) throw new Error(`longcontext: rebuilt the Child to turn ${fold.state?.turn}`);
  });
  const readRows = async () => {
    const { rows } = (await bench.raw(`SELECT request::text AS r FROM bench_whole_requests WHERE run = $1 ORDER BY id`, [run])) as { rows: { r: string }[] };
    return rows.map((row) => JSON.parse(row.r) as unknown);
  };
  const refRead = await medianMs(readRows);
  // A store of whole requests rebuilds by taking the last one: its rows read, the last kept.
  const refRebuild = await medianMs(async () => (await readRows()).at(-1));
  return {
    newBytes,
    totalTokens,
    byType: Object.fromEntries(byType.map((r) => [r.type, Number(r.json)])),
    log: { jsonBytes: Number(logBytes.json), storedBytes: Number(logBytes.stored), appendMs: timed.turnAppendsMs(childStream), readMs: logRead, rebuildMs: logRebuild },
    reference: { jsonBytes: Number(refBytes.json), storedBytes: Number(refBytes.stored), appendMs: referenceMs, readMs: refRead, rebuildMs: refRebuild },
  };
}

/** The store with each append's time kept, by stream, for appends that carry a turn event. */
function timeAppends(store: EventStore) {
  const byStream = new Map<string, number[]>();
  return {
    store: {
      ...store,
      append: async (streamId, expectedVersion, events) => {
        const t0 = performance.now();
        const result = await store.append(streamId, expectedVersion, events);
        if (events.some((e) => e.type === "turn")) {
          let list = byStream.get(streamId);
          if (!list) byStream.set(streamId, (list = []));
          list.push(performance.now() - t0);
        }
        return result;
      },
    } satisfies EventStore,
    turnAppendsMs: (streamId: string) => byStream.get(streamId) ?? [],
  };
}

/** The median of turns n-WINDOW+1 .. n+WINDOW-1 (1-based), within the list. */
function windowMedian(perTurn: number[], n: number): number {
  const from = Math.max(0, n - WINDOW);
  return percentile(perTurn.slice(from, Math.min(perTurn.length, n + WINDOW - 1)), 50);
}

async function medianMs(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REBUILD_READS; i++) {
    const t0 = performance.now();
    await work();
    times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
