import { pathToFileURL } from "node:url";
import pg from "pg";
import { type Footprint, bytesPer, footprint } from "./overheadBytes.ts";
import { type BenchEngine, openBenchPostgres } from "./overheadEngines.ts";
import { percentile } from "./overheadProbe.ts";
import { f, table } from "./overheadReport.ts";
import { runOverheadScenario } from "./overheadRun.ts";
import { CHILDREN, CHILD_TURNS, TURNS_PER_RUN } from "./overheadScenario.ts";
import { progress, readMachine, repeatFlag } from "./progress.ts";

/**
 * The peers' workload, tracked without the peers installed: Main delegates 4
 * Children of 10 steps each and answers (a step is a model turn, its tool call
 * and result, persisted durably before the next), on PostgreSQL with fsync on,
 * one run at a time and 10 runs at once, beside a raw floor measured in the
 * same run: single-row INSERT commits of a turn-sized jsonb payload, one
 * connection at a time and 10 connections at once. Issue 34 measured DBOS
 * Transact (198 and 308 steps/s) and LangGraph JS with PostgresSaver (178 and
 * 115) beside Ariadne (321 and 714) on this machine; the ratio to the floor is
 * what stays comparable as the machine's load moves. Medians of --repeat
 * rounds (3 by default).
 *
 *   npm run bench -- peers
 *   npm run bench -- peers --repeat=5
 */
const SEQUENTIAL_RUNS = 5;
const AT_ONCE = 10;
const FLOOR_MS = 2000;
/** Figures of the peers and Ariadne as issue 34 measured them (steps/s one at a time, 10 at once), to print beside. */
const PEERS = [
  { system: "DBOS Transact (issue 34)", one: 198, ten: 308, kib: "36 / 56" },
  { system: "LangGraph JS + PostgresSaver (issue 34)", one: 178, ten: 115, kib: "166 / 217" },
  { system: "Ariadne (issue 34)", one: 321, ten: 714, kib: "148 / 187" },
];

interface Round {
  one: number;
  ten: number;
  /** This process's CPU over the wall time of each phase, as a share of one core. */
  cpuOne: number;
  cpuTen: number;
  floorOne: number;
  floorTen: number;
  run: Footprint;
  floorRun: Footprint;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const repeat = repeatFlag(argv, "peers");
  const machine = readMachine();
  const started = performance.now();
  progress(`peers bench: Main -> ${CHILDREN} Children x ${CHILD_TURNS} steps -> answer (${TURNS_PER_RUN} turns a run); ${repeat} rounds, medians`);
  progress(machine.atStart);
  const bench = await openBenchPostgres();
  const rounds: Round[] = [];
  let turnBytes = 0;
  try {
    progress(`postgres: ${bench.describe}`);
    const calibration = await runOverheadScenario(bench.store, { runs: 1, concurrent: false, sizes: true });
    turnBytes = Math.round(calibration.probe.turnEventBytes / calibration.turns);
    for (let r = 1; r <= repeat; r++) {
      rounds.push(await round(bench, turnBytes));
      const x = rounds.at(-1)!;
      progress(`round ${r}: one at a time ${f(x.one, 0)} steps/s (floor ${f(x.floorOne, 0)}), ${AT_ONCE} at once ${f(x.ten, 0)} (floor ${f(x.floorTen, 0)})`);
    }
  } finally {
    await bench.close();
  }
  const med = (pick: (r: Round) => number) => percentile(rounds.map(pick), 50);
  const kib = (b: Footprint) => `${f(b.tableBytes / 1024, 0)} / ${f(b.walBytes / 1024, 0)}`;
  const floor = { one: med((r) => r.floorOne), ten: med((r) => r.floorTen) };
  const ratio = (n: number, of: number) => `${f(n, 0)} (${f(n / of, 2)}x raw)`;
  console.log(`\nThe peers' workload: Main -> ${CHILDREN} Children x ${CHILD_TURNS} steps -> answer, one durable persist per step (a step: one turn; ${TURNS_PER_RUN} a run)`);
  console.log(`  raw: single-row INSERT commits of a ${turnBytes} B jsonb payload (an average turn event), one connection, then ${AT_ONCE} at once; medians of ${rounds.length} rounds\n`);
  table(
    ["system", "one run at a time, steps/s", `${AT_ONCE} at once, steps/s`, "table / WAL KiB a run"],
    [
      ["raw INSERT per step (the floor, this run)", f(floor.one, 0), f(floor.ten, 0), kib({ tableBytes: med((r) => r.floorRun.tableBytes), walBytes: med((r) => r.floorRun.walBytes) })],
      ["Ariadne (this run)", ratio(med((r) => r.one), floor.one), ratio(med((r) => r.ten), floor.ten), kib({ tableBytes: med((r) => r.run.tableBytes), walBytes: med((r) => r.run.walBytes) })],
      ...PEERS.map((p) => [p.system, String(p.one), String(p.ten), p.kib]),
    ],
  );
  console.log(
    `\n  this process's CPU (user + system over the wall time; the runtime and the pg client, not PostgreSQL): ${f(100 * med((r) => r.cpuOne), 0)}% of one core one run at a time, ${f(100 * med((r) => r.cpuTen), 0)}% ${AT_ONCE} at once (near 100%: bound by its one JavaScript thread, not the database)`,
  );
  console.log(`  issue 34's raw floor was 2,304 and 3,133 steps/s (Ariadne 0.14x and 0.23x of it): compare the ratios, not the steps/s, across machines and days`);
  console.log(`  table: this database's tables (indexes and TOAST included); WAL: the server's, so other databases' writes during the run count too`);
  console.log(`  peak RSS of this bench process: ${f(process.resourceUsage().maxRSS / 1024, 0)} MB (npm run bench -- rss measures Ariadne's alone)`);
  console.log(`  ${machine.atEnd()}`);
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function round(bench: BenchEngine, turnBytes: number): Promise<Round> {
  const before = await footprint(bench.raw);
  const one = await runOverheadScenario(bench.store, { runs: SEQUENTIAL_RUNS, concurrent: false });
  const run = bytesPer(before, await footprint(bench.raw), SEQUENTIAL_RUNS);
  const ten = await runOverheadScenario(bench.store, { runs: AT_ONCE, concurrent: true });
  const floorOne = await rawInserts(bench, turnBytes, 1);
  const floorTen = await rawInserts(bench, turnBytes, AT_ONCE);
  return {
    one: one.turns / (one.wallMs / 1000),
    ten: ten.turns / (ten.wallMs / 1000),
    cpuOne: one.cpuMs / one.wallMs,
    cpuTen: ten.cpuMs / ten.wallMs,
    floorOne: floorOne.perSecond,
    floorTen: floorTen.perSecond,
    run,
    floorRun: { tableBytes: floorOne.bytes.tableBytes * TURNS_PER_RUN, walBytes: floorOne.bytes.walBytes * TURNS_PER_RUN },
  };
}

/** Single-row INSERT commits for FLOOR_MS from `connections` connections at once, each one after another; inserts/s in all, bytes an insert. */
async function rawInserts(bench: BenchEngine, payloadBytes: number, connections: number): Promise<{ perSecond: number; bytes: Footprint }> {
  const pool = new pg.Pool({ connectionString: bench.url, max: connections });
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS bench_peers_floor (id bigserial PRIMARY KEY, payload jsonb NOT NULL)`);
    const payload = JSON.stringify({ filler: "x".repeat(Math.max(0, payloadBytes - 14)) });
    const insert = () => pool.query(`INSERT INTO bench_peers_floor (payload) VALUES ($1::jsonb)`, [payload]);
    for (let i = 0; i < 20; i++) await insert();
    const before = await footprint(bench.raw);
    const started = performance.now();
    let inserts = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() - started < FLOOR_MS) {
          await insert();
          inserts++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const bytes = bytesPer(before, await footprint(bench.raw), inserts);
    await pool.query(`DROP TABLE bench_peers_floor`);
    return { perSecond: inserts / seconds, bytes };
  } finally {
    await pool.end();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
