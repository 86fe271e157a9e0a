import type { Engine } from "../db/index.ts";
import type { AppendFloor } from "./overheadAppendFloor.ts";
import type { RawFloor } from "./overheadRawFloor.ts";
import type { ScenarioResult } from "./overheadRun.ts";

export interface ReportRow {
  engine: Engine;
  scenario: string;
  result: ScenarioResult;
  floor: RawFloor;
  appendFloor: AppendFloor;
}

/** Prints the three tables and the runtime-alone line; `aim` is the wanted turns/s ÷ raw inserts/s. */
export function printOverheadReport(rows: ReportRow[], alone: ScenarioResult, aim: number): void {
  console.log(`\nRuntime overhead per turn vs the raw commit floor (aim: turns/s >= ${aim}x raw inserts/s)`);
  console.log("  ms/turn: gap between consecutive model calls of one Child (record turn + tool + its one row, intent and result + folds + next request)");
  console.log("  raw: sequential single-row INSERT commits of a turn-sized jsonb payload, same database, driver directly\n");
  table(
    ["engine", "scenario", "turns", "median ms/turn", "p95 ms/turn", "wall ms/turn", "turns/s", "raw inserts/s", "ratio", "aim"],
    rows.map(({ engine, scenario, result: r, floor }) => {
      const turnsPerS = r.turns / (r.wallMs / 1000);
      const ratio = turnsPerS / floor.insertsPerSecond;
      return [engine, scenario, r.turns, f(r.medianMsPerTurn, 2), f(r.p95MsPerTurn, 2), f(r.wallMs / r.turns, 3), f(turnsPerS, 0), f(floor.insertsPerSecond, 0), `${f(ratio, 2)}x`, ratio >= aim ? "met" : "MISSED"];
    }),
  );
  const first = rows[0]?.result;
  const commitsPerTurn = first?.commits != null ? first.commits / first.turns : Number.NaN;
  console.log(
    `\n  Ceiling: run after run, a turn commits ${f(commitsPerTurn, 2)} times (${f(first ? first.probe.appends / first.turns : Number.NaN, 2)} appends;` +
      ` appends made while another commits share its successor), the floor once, so even a runtime and store that cost nothing` +
      ` reach ${f(1 / commitsPerTurn, 2)}x. The concurrent rows are compared with the sequential floor.`,
  );

  console.log("\nThe same runs counted in events, appends and commits (a turn writes several events in an append or two; appends made at once share a commit)\n");
  table(
    ["engine", "scenario", "events/turn", "appends/turn", "commits/turn", "events/s", "commits/s", "raw inserts/s", "events/s ÷ raw", "commits/s ÷ raw", "raw ms/insert", "append floor/s", "ms/append"],
    rows.map(({ engine, scenario, result: r, floor, appendFloor }) => {
      const s = r.wallMs / 1000;
      return [
        engine,
        scenario,
        f(r.probe.events / r.turns, 2),
        f(r.probe.appends / r.turns, 2),
        f((r.commits ?? Number.NaN) / r.turns, 2),
        f(r.probe.events / s, 0),
        f((r.commits ?? Number.NaN) / s, 0),
        f(floor.insertsPerSecond, 0),
        `${f(r.probe.events / s / floor.insertsPerSecond, 2)}x`,
        `${f((r.commits ?? Number.NaN) / s / floor.insertsPerSecond, 2)}x`,
        f(floor.msPerInsert, 3),
        f(appendFloor.appendsPerSecond, 0),
        f(appendFloor.msPerAppend, 3),
      ];
    }),
  );

  console.log("\nWhere the time goes, per turn (sums over all executors; concurrent work overlaps, so sums can exceed wall time)\n");
  table(
    ["engine", "scenario", "wall ms/turn", "node CPU ms/turn", "node CPU %", "append ms/turn", "ms/append (in run)", "fold ms/turn", "appends in flight (avg)", "max event-loop delay ms"],
    rows.map(({ engine, scenario, result: r }) => [
      engine,
      scenario,
      f(r.wallMs / r.turns, 3),
      f(r.cpuMs / r.turns, 3),
      f((100 * r.cpuMs) / r.wallMs, 0),
      f(r.probe.appendMs / r.turns, 3),
      f(r.probe.appendMs / r.probe.appends, 3),
      f(r.probe.foldMs / r.turns, 3),
      f(r.probe.appendMs / r.wallMs, 2),
      f(r.maxLoopDelayMs, 0),
    ]),
  );
  console.log(
    `\n  Runtime alone (in-memory store, no database, ${alone.runs} runs in a row): ${f(alone.wallMs / alone.turns, 3)} ms/turn` +
      ` (node CPU ${f(alone.cpuMs / alone.turns, 3)} ms/turn),` +
      ` ${f(alone.turns / (alone.wallMs / 1000), 0)} turns/s, median ${f(alone.medianMsPerTurn, 3)} ms between a Child's model calls;` +
      ` store.append client side ${f(alone.probe.appendMs / alone.turns, 3)} ms/turn, fold ${f(alone.probe.foldMs / alone.turns, 3)} ms/turn.`,
  );
  console.log("");
}

/** A plain-text table: the first two columns left-aligned, the rest right-aligned (the capacity bench prints one too). */
export function table(header: string[], body: (string | number)[][]): void {
  const cells = [header, ...body.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => `  ${r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")}`;
  console.log(line(cells[0]));
  console.log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const r of cells.slice(1)) console.log(line(r));
}

export const f = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
