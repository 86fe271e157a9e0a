import { pathToFileURL } from "node:url";
import type { Engine } from "../db/index.ts";
import { measureAppendFloor } from "./overheadAppendFloor.ts";
import { type Footprint, bytesPer, footprint } from "./overheadBytes.ts";
import { type BenchEngine, openBenchPglite, openBenchPostgres } from "./overheadEngines.ts";
import { createMemoryStore } from "./overheadMemoryStore.ts";
import { measureRawFloor } from "./overheadRawFloor.ts";
import { type ReportRow, printOverheadReport } from "./overheadReport.ts";
import { runOverheadScenario } from "./overheadRun.ts";
import { CHILDREN, CHILD_TURNS, TURNS_PER_RUN } from "./overheadScenario.ts";
import { progress, readMachine } from "./progress.ts";

/**
 * Runtime overhead per turn against the database's raw commit floor.
 *
 * Main + 4 Children x 10 turns with a zero-latency scripted model and a trivial
 * read-only tool, so the time left is the runtime's: per turn it records the
 * turn and the tool call (a read-only call's intent and result are one row,
 * held and appended with the next turn), folds them and builds the next
 * request. Measured on PostgreSQL and in-memory PGlite, once run after
 * run and with 20 runs at once, beside sequential single-row INSERT commits of
 * a turn-sized payload (the raw floor) and sequential store.append calls.
 *
 *   node --import tsx bench/overhead.ts
 *   ARIADNE_BENCH_ENGINES=pglite node --import tsx bench/overhead.ts
 */
const SEQUENTIAL_RUNS = 5;
const CONCURRENT_RUNS = 20;
const AIM = 0.5;

export async function main(): Promise<void> {
  const engines = (process.env.ARIADNE_BENCH_ENGINES?.split(",") ?? ["postgres", "pglite"]) as Engine[];
  const started = performance.now();
  const rows: ReportRow[] = [];
  const notes: string[] = [];
  progress(`overhead bench: Main + ${CHILDREN} Children x ${CHILD_TURNS} turns (${TURNS_PER_RUN} turns a run), engines ${engines.join(", ")}`);
  const machine = readMachine();
  progress(machine.atStart);

  for (const engine of engines) {
    progress(`${engine}: opening`);
    let bench: BenchEngine;
    try {
      bench = engine === "postgres" ? await openBenchPostgres() : await openBenchPglite();
    } catch (e) {
      progress(`${engine}: skipped, cannot open (${(e as Error).message})`);
      notes.push(`${engine}: skipped (${(e as Error).message})`);
      continue;
    }
    try {
      progress(`${engine}: ${bench.describe}`);
      progress(`${engine}: calibration run (warms up, measures event sizes)`);
      const calibration = await runOverheadScenario(bench.store, { runs: 1, concurrent: false, sizes: true });
      const c = calibration.probe;
      const turnBytes = Math.round(c.turnEventBytes / calibration.turns);
      const eventBytes = Math.round(c.eventBytes / c.events);
      notes.push(`${engine}: avg turn event ${turnBytes} B JSON, avg event ${eventBytes} B; a run writes ${describeEvents(c.eventsByType)}`);

      progress(`${engine}: ${SEQUENTIAL_RUNS} runs, one after the other`);
      const before = await footprint(bench.raw);
      const sequential = await runOverheadScenario(bench.store, { runs: SEQUENTIAL_RUNS, concurrent: false });
      const perTurn = bytesPer(before, await footprint(bench.raw), sequential.turns);
      progress(`${engine}: raw floor, sequential INSERT commits of ${turnBytes} B jsonb`);
      const floor = await measureRawFloor(bench.raw, turnBytes);
      notes.push(describeBytes(engine, perTurn, floor.bytes));
      progress(`${engine}: store.append floor, sequential one-event appends of a turn event`);
      const appendFloor = await measureAppendFloor(bench.store, c.sampleTurn!);
      progress(`${engine}: ${CONCURRENT_RUNS} runs at once on one Runtime`);
      const concurrent = await runOverheadScenario(bench.store, { runs: CONCURRENT_RUNS, concurrent: true });
      progress(`${engine}: ${SEQUENTIAL_RUNS} runs one after the other, under the run governance (budget reserved and settled per model call)`);
      const governed = await runOverheadScenario(bench.store, { runs: SEQUENTIAL_RUNS, concurrent: false, governed: true });
      rows.push(
        { engine, scenario: `1 run (x${SEQUENTIAL_RUNS} seq)`, result: sequential, floor, appendFloor },
        { engine, scenario: `${CONCURRENT_RUNS} runs concurrent`, result: concurrent, floor, appendFloor },
        { engine, scenario: `1 run (x${SEQUENTIAL_RUNS} seq), governed`, result: governed, floor, appendFloor },
      );
    } finally {
      progress(`${engine}: closing`);
      await bench.close();
    }
  }

  // Last, so the JIT is as warm as it was for the engines' runs.
  progress("runtime alone: the same scenario on an in-memory store (validation and hashing, no database)");
  const memory = createMemoryStore();
  await runOverheadScenario(memory, { runs: 3, concurrent: false });
  const alone = await runOverheadScenario(memory, { runs: CONCURRENT_RUNS, concurrent: false });

  notes.push(machine.atEnd(" (the bench itself adds 1-2)"));
  printOverheadReport(rows, alone, AIM);
  for (const n of notes) console.log(`  ${n}`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Bytes a turn wrote in the sequential runs beside an insert of the raw floor (aim: at most 3x each). */
function describeBytes(engine: string, turn: Footprint, insert: Footprint): string {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
  return (
    `${engine}: bytes a turn, run after run: table ${Math.round(turn.tableBytes)} B, WAL ${Math.round(turn.walBytes)} B; ` +
    `a raw-floor insert: table ${Math.round(insert.tableBytes)} B, WAL ${Math.round(insert.walBytes)} B; ` +
    `ratio ${ratio(turn.tableBytes, insert.tableBytes)} table, ${ratio(turn.walBytes, insert.walBytes)} WAL (aim <= 3x)`
  );
}

function describeEvents(byType: Record<string, number>): string {
  return Object.entries(byType).map(([t, n]) => `${n} ${t}`).join(", ");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
