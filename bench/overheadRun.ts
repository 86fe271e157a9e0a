import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "kysely";
import { Runtime } from "../actors/index.ts";
import type { EventStore } from "../events/index.ts";
import { createRunGovernance } from "../governance/index.ts";
import { ToolRegistry } from "../tools/index.ts";
import { RunProbe, percentile } from "./overheadProbe.ts";
import { TURNS_PER_RUN, TurnMarks, noopLookup, overheadModel } from "./overheadScenario.ts";

export interface ScenarioResult {
  runs: number;
  concurrent: boolean;
  turns: number;
  wallMs: number;
  /** CPU time of this Node process during the runs (user + system), in ms. */
  cpuMs: number;
  /** The longest the event loop went without running timers or I/O callbacks, in ms. */
  maxLoopDelayMs: number;
  medianMsPerTurn: number;
  p95MsPerTurn: number;
  /** Transactions that wrote these runs' events (appends made at once share one); null without a database. */
  commits: number | null;
  probe: RunProbe;
}

let runCounter = 0;

/**
 * Runs the overhead scenario `runs` times on one Runtime over `store`: one after
 * the other, or all started at once. Every run must end with Main's answer.
 */
export async function runOverheadScenario(
  store: EventStore,
  { runs, concurrent, sizes = false, governed = false }: { runs: number; concurrent: boolean; sizes?: boolean; governed?: boolean },
): Promise<ScenarioResult> {
  const probe = new RunProbe(sizes);
  const marks = new TurnMarks();
  const model = overheadModel(marks);
  const runtime = new Runtime({
    store: probe.wrap(store),
    models: { main: model, child: model },
    modelNames: { main: "bench-main", child: "bench-child" },
    tools: new ToolRegistry().register(noopLookup),
    onEvent: probe.onEvent,
    // As `ariadne run` hosts a run: the shared budget reserved before each model call and settled with its turn.
    ...(governed && { governance: ({ post }) => createRunGovernance({ db: store.database, post }) }),
  });
  const question = () => `Overhead bench ${process.pid} run ${++runCounter}`;

  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const outcomes = [];
  if (concurrent) {
    const handles = await Promise.all(Array.from({ length: runs }, () => runtime.startRun(question())));
    outcomes.push(...(await Promise.all(handles.map((h) => h.result))));
  } else {
    for (let i = 0; i < runs; i++) outcomes.push(await (await runtime.startRun(question())).result);
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  loopDelay.disable();

  const notAnswered = outcomes.find((o) => o.kind !== "answer");
  if (notAnswered) throw new Error(`a bench run ended without an answer: ${JSON.stringify(notAnswered).slice(0, 500)}`);
  const turns = probe.eventsByType.turn ?? 0;
  if (turns !== runs * TURNS_PER_RUN) throw new Error(`expected ${runs * TURNS_PER_RUN} turn events, saw ${turns}`);
  return {
    runs,
    concurrent,
    turns,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxLoopDelayMs: loopDelay.max / 1e6,
    medianMsPerTurn: percentile(marks.childGapsMs, 50),
    p95MsPerTurn: percentile(marks.childGapsMs, 95),
    commits: store.database ? await countCommits(store, [...probe.runIds]) : null,
    probe,
  };
}

async function countCommits(store: EventStore, runIds: string[]): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    SELECT count(DISTINCT tx_id) AS n FROM ariadne_events WHERE run_id = ANY(${runIds}::text[])`.execute(store.database.db);
  return Number(rows[0].n);
}
