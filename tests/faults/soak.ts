/**
 * `npm run soak`: the fault matrix over many seeds on PostgreSQL. Prints a
 * table of crash point x runs x crashes x invariant violations; exits 1 when
 * any invariant was violated. SOAK_SEEDS (default 10) seeds per point,
 * SOAK_LANES (default 2) cases at once, each lane with its own database.
 */
import { createScratchDatabase } from "../../db/scratchDatabase.ts";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { startEffectCounter } from "./effectCounter.ts";
import { CRASH_POINTS, type CaseResult, runCase } from "./harness.ts";

const seeds = Number(process.env.SOAK_SEEDS ?? 10);
const laneCount = Number(process.env.SOAK_LANES ?? 2);
const counter = await startEffectCounter();
const lanes = await Promise.all(
  Array.from({ length: laneCount }, async (_, i) => {
    const scratch = await createScratchDatabase(`ariadne_soak_${process.pid}_${i}`, ADMIN_URL);
    const database = await openDatabase({ url: scratch.url });
    await migrateToLatest(database);
    await database.close();
    return scratch;
  }),
);
const cases = CRASH_POINTS.flatMap((point) => Array.from({ length: seeds }, (_, s) => ({ point, seed: s + 1 })));
const results: CaseResult[] = [];
const failures: string[] = [];
const started = Date.now();
try {
  await Promise.all(
    lanes.map(async (lane) => {
      for (let c = cases.shift(); c; c = cases.shift()) {
        try {
          const r = await runCase({ url: lane.url }, counter, c.point, c.seed);
          results.push(r);
          for (const v of r.violations) failures.push(`${c.point} seed ${c.seed} run ${r.runId}: ${v}`);
        } catch (e) {
          results.push({ point: c.point, seed: c.seed, runId: "-", crashed: false, restart: "worker", firstOutput: "", violations: [(e as Error).message] });
          failures.push(`${c.point} seed ${c.seed}: harness error: ${(e as Error).message.split("\n")[0]}`);
        }
        process.stderr.write(".");
      }
    }),
  );
} finally {
  await counter.close();
  await Promise.all(lanes.map((l) => l.drop()));
}

process.stderr.write("\n");
const rows = CRASH_POINTS.map((point) => {
  const mine = results.filter((r) => r.point === point);
  return [point, mine.length, mine.filter((r) => r.crashed).length, mine.reduce((n, r) => n + r.violations.length, 0)];
});
const header = ["crash point", "runs", "crashed", "violations"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (cells: (string | number)[]) => `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(" | ")} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
for (const r of rows) console.log(line(r));
console.log(`${results.length} runs, ${failures.length} violations, ${((Date.now() - started) / 1000).toFixed(0)} s`);
for (const f of failures) console.log(`  ${f}`);
process.exitCode = failures.length ? 1 : 0;
