import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { type Database, migrateToLatest, openDatabase } from "../db/index.ts";
import { DEFAULT_ADMIN_URL, createScratchDatabase } from "../db/scratchDatabase.ts";
import { SERVER_SETTINGS_SQL } from "./appendTargets.ts";
import { CONFIGURED_CAPS, openRunBudget, reserveBudget, settleBudget } from "../governance/index.ts";

/**
 * The shared run budget under contention, on PostgreSQL: 1, 8 and 32
 * executors of ONE run reserve against its one ledger row and settle, in a
 * loop. Beside it, the same number of workers run a plain counter UPDATE on a
 * row of the same run (+1, then -1: two statements a cycle, as reserve and
 * settle are). Reservations/s is cycles/s; the wait is the reserve statement's
 * latency (the counter's +1 for the baseline). Both take turns in short slices
 * so load from elsewhere on the machine hits both alike.
 *
 *   npm run bench -- budget
 *   ARIADNE_BENCH_ROUNDS=12 node --import tsx bench/budget.ts
 */
const SLICE_MS = Number(process.env.ARIADNE_BENCH_SLICE_MS ?? 250);
const ROUNDS = Number(process.env.ARIADNE_BENCH_ROUNDS ?? 8);
const WARMUP_MS = 300;
const CONCURRENCY = [1, 8, 32] as const;
const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? DEFAULT_ADMIN_URL;

/** One reserve-then-settle cycle; resolves to the wait of its first statement, in ms. */
type Cycle = () => Promise<number>;

interface Measured {
  perSecond: number;
  p95: number;
}

export async function main(): Promise<void> {
  const started = performance.now();
  const load = loadavg()[0];
  const scratch = await createScratchDatabase(`ariadne_bench_budget_${process.pid}`, ADMIN_URL);
  let database: Database | undefined;
  try {
    database = await openDatabase({ url: scratch.url, poolSize: Math.max(...CONCURRENCY) + 2 });
    await migrateToLatest(database);
    const settings = await sql.raw<{ s: string }>(SERVER_SETTINGS_SQL).execute(database.db);
    await sql`CREATE TABLE bench_counter (run_id text PRIMARY KEY, n bigint NOT NULL)`.execute(database.db);

    const rows: { executors: number; ledger: Measured; plain: Measured; plainAsync: Measured }[] = [];
    for (const executors of CONCURRENCY) {
      const runId = `bench-budget-${executors}`;
      await openRunBudget(database, runId, CONFIGURED_CAPS);
      await sql`INSERT INTO bench_counter VALUES (${runId}, 0)`.execute(database.db);
      const [ledger, plain, plainAsync] = await measure(
        [
          Array.from({ length: executors }, (_, i) => ledgerCycle(database!, runId, `executor-${i}`)),
          Array.from({ length: executors }, () => counterCycle(database!, runId, false)),
          Array.from({ length: executors }, () => counterCycle(database!, runId, true)),
        ],
      );
      rows.push({ executors, ledger, plain, plainAsync });
      console.log(`· ${executors} executor(s): ${fmt(ledger.perSecond)} reservations/s (p95 wait ${ledger.p95.toFixed(2)} ms) vs plain UPDATE ${fmt(plain.perSecond)}/s`);
    }
    printTable(rows);
    console.log(`  postgres ${settings.rows[0].s}; pool ${Math.max(...CONCURRENCY) + 2}`);
    console.log(
      `  a cycle is reserve + settle (ledger) or +1 / -1 (plain UPDATE, autocommit; "async": the same statement with synchronous_commit off for its transaction, as the ledger commits); ` +
        `${ROUNDS} alternating slices of ${SLICE_MS} ms per kind; 1-min load ${load.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end; ` +
        `total ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await database?.close().catch(() => {});
    await scratch.drop();
  }
}

function ledgerCycle(database: Database, runId: string, executorId: string): Cycle {
  const reserve = { runId, executorId, tokens: 1000, costMicros: 1000, executorMaxTokens: 600_000 };
  return async () => {
    const t = performance.now();
    const r = await reserveBudget(database, reserve);
    const wait = performance.now() - t;
    if (!r.ok) throw new Error(`bench reservation refused: ${JSON.stringify(r.totals)}`);
    // Nothing spent, so the run never fills up however long the bench runs.
    await settleBudget(database, { runId, executorId, reserved: { tokens: 1000, costMicros: 1000 }, actual: { tokens: 0, costMicros: 0 } });
    return wait;
  };
}

/** The baseline: the same two writes as a plain counter, in their own transactions. */
function counterCycle(database: Database, runId: string, asyncCommit: boolean): Cycle {
  // "async": one statement that also sets synchronous_commit off for its own transaction, as the ledger does.
  const update = (delta: number) =>
    asyncCommit
      ? sql`WITH off AS (SELECT set_config('synchronous_commit', 'off', true))
            UPDATE bench_counter SET n = n + ${delta} FROM off WHERE run_id = ${runId}`.execute(database.db)
      : sql`UPDATE bench_counter SET n = n + ${delta} WHERE run_id = ${runId}`.execute(database.db);
  return async () => {
    const t = performance.now();
    await update(1);
    const wait = performance.now() - t;
    await update(-1);
    return wait;
  };
}

/** Each kind in turn, slice after slice; cycles/s and the p95 wait of each kind. */
async function measure(kinds: Cycle[][]): Promise<Measured[]> {
  for (const cycles of kinds) await slice(cycles, WARMUP_MS);
  const totals = kinds.map(() => ({ cycles: 0, seconds: 0, waits: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, cycles] of kinds.entries()) {
      const r = await slice(cycles, SLICE_MS);
      totals[k].cycles += r.waits.length;
      totals[k].seconds += r.seconds;
      totals[k].waits.push(...r.waits);
    }
  }
  return totals.map((t) => ({ perSecond: t.cycles / t.seconds, p95: percentile(t.waits, 0.95) }));
}

async function slice(cycles: Cycle[], ms: number): Promise<{ waits: number[]; seconds: number }> {
  const start = performance.now();
  const waits: number[] = [];
  await Promise.all(
    cycles.map(async (cycle) => {
      while (performance.now() - start < ms) waits.push(await cycle());
    }),
  );
  return { waits, seconds: (performance.now() - start) / 1000 };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function printTable(rows: { executors: number; ledger: Measured; plain: Measured; plainAsync: Measured }[]): void {
  const header = ["executors", "reservations/s", "p95 wait", "plain UPDATE/s", "p95", "ratio", "plain async/s", "p95", "ratio"];
  const body = rows.map((r) => [
    String(r.executors),
    fmt(r.ledger.perSecond),
    `${r.ledger.p95.toFixed(2)} ms`,
    fmt(r.plain.perSecond),
    `${r.plain.p95.toFixed(2)} ms`,
    (r.ledger.perSecond / r.plain.perSecond).toFixed(2),
    fmt(r.plainAsync.perSecond),
    `${r.plainAsync.p95.toFixed(2)} ms`,
    (r.ledger.perSecond / r.plainAsync.perSecond).toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  console.log("");
  for (const line of [header, widths.map((w) => "-".repeat(w)), ...body]) console.log(`  ${line.map((c, i) => c.padStart(widths[i])).join("  ")}`);
  console.log("");
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
