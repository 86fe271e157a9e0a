/**
 * `npm run soak`: the fault matrix over every crash point, on PostgreSQL and
 * PGlite. A run's log from a clean run of each scenario variant says which
 * event types the runtime writes; each commit family (before, during, after)
 * x type x pass, and the other points, is armed in chains (tests/faults/chain.ts):
 * one run crashed at several points in turn, one process start per crash, then
 * finished and checked. Prints crash point family x engine (runs, armed,
 * crashes, violations), the crashes per event type, and exits 1 on any violation.
 *
 * env: SOAK_ROUNDS (default 1) passes over every point on PostgreSQL,
 * SOAK_PGLITE_ROUNDS (default 1) on PGlite (0 skips an engine), SOAK_CHAIN
 * (default 6) points per run, SOAK_MAX_NTH (default 3) passes of a type,
 * SOAK_MAX_RUNS (a quick look: at most this many chains an engine),
 * SOAK_MINUTES, SOAK_PGLITE_MINUTES (no new run on an engine after this long; the rounds left are skipped),
 * SOAK_LANES (default 2) runs at once, each lane its own database or data
 * directory, SOAK_LOG (a directory) for the processes' output of any run with
 * a violation, SOAK_OUT (a file) to append each run's result to as a JSON line.
 *
 * Then the infrastructure faults (tests/faults/infraSoak.ts): SOAK_RESTARTS
 * (default 4) PostgreSQL restarts of a cluster of the soak's own, alternating
 * fast and immediate, each down 3-20 s (SOAK_DOWN_MS fixes it) while three runs
 * are hosted; SOAK_DISK_FULLS (default 2) full disks per engine, a small tmpfs
 * under a PGlite data directory and under a cluster's, filled while three runs
 * work (skipped, saying why, where no tmpfs can be mounted). Prints fault x
 * engine (rounds, runs, interrupted, failed executors, lost, doubled, violations).
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase } from "../../db/scratchDatabase.ts";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { openStore } from "../../events/openStore.ts";
import { eventTypes } from "../../events/catalogue.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { type ChainResult, runChain } from "./chain.ts";
import type { InfraResult } from "./infraFaults.ts";
import { describe as describeInfra, infraSoak } from "./infraSoak.ts";
import { startEffectCounter } from "./effectCounter.ts";
import { variantOf } from "./faultScenario.ts";
import type { FaultTarget } from "./harness.ts";
import { NOT_COVERED, RECOVERY_TYPES, canOpenChain, familyOf, pointsFor } from "./points.ts";

const env = process.env;
const rounds = { postgres: Number(env.SOAK_ROUNDS ?? 1), pglite: Number(env.SOAK_PGLITE_ROUNDS ?? 1) };
const chainLength = Number(env.SOAK_CHAIN ?? 6);
const maxNth = Number(env.SOAK_MAX_NTH ?? 3);
const laneCount = Number(env.SOAK_LANES ?? 2);
const VARIANT_SEEDS = [3, 1, 2]; // one seed of each variant (seed % 3), for the clean runs

type Engine = "postgres" | "pglite";
interface Lane {
  target: FaultTarget;
  drop(): Promise<void>;
}

const counter = await startEffectCounter();
const results: ChainResult[] = [];
const errors: string[] = [];
const started = Date.now();
const scratchDir = await mkdtemp(join(tmpdir(), "ariadne-soak-"));
/** By variant: the event types of a clean run's log, in the order written. */
const written = new Map<string, string[]>();
const infra: { results: InfraResult[]; errors: string[]; skipped: string[] } = { results: [], errors: [], skipped: [] };

try {
  for (const engine of ["postgres", "pglite"] as const) {
    if (rounds[engine] <= 0) continue;
    const lanes = await Promise.all(Array.from({ length: laneCount }, (_, i) => openLane(engine, i)));
    try {
      // Which types a run of each variant writes: read from the logs of clean runs, once.
      if (written.size === 0) {
        for (const seed of VARIANT_SEEDS) written.set(variantOf(seed), await typesWritten(lanes[0].target, seed));
      }
      await soak(engine, lanes);
    } finally {
      await Promise.all(lanes.map((l) => l.drop()));
    }
  }
  const plan = { restarts: Number(env.SOAK_RESTARTS ?? 4), diskFulls: Number(env.SOAK_DISK_FULLS ?? 2), downMs: env.SOAK_DOWN_MS ? Number(env.SOAK_DOWN_MS) : undefined };
  if (plan.restarts > 0 || plan.diskFulls > 0) {
    try {
      Object.assign(infra, await infraSoak(counter, { ...plan, log: (line) => process.stderr.write(`${line}\n`) }));
      errors.push(...infra.errors.map((e) => `infrastructure faults: ${e}`));
    } catch (e) {
      errors.push(`infrastructure faults: ${(e as Error).message.slice(0, 4000)}`);
    }
  }
} finally {
  await counter.close();
  await rm(scratchDir, { recursive: true, force: true });
}
report();

async function openLane(engine: Engine, i: number): Promise<Lane> {
  if (engine === "postgres") {
    const scratch = await createScratchDatabase(`ariadne_soak_${process.pid}_${i}`, ADMIN_URL);
    const database = await openDatabase({ url: scratch.url });
    await migrateToLatest(database);
    await database.close();
    return { target: { url: scratch.url }, drop: () => scratch.drop() };
  }
  const dataDir = join(scratchDir, `pglite-${i}`);
  await (await openStore({ dataDir })).close();
  return { target: { dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

async function typesWritten(target: FaultTarget, seed: number): Promise<string[]> {
  const r = await runChain(target, counter, [], seed);
  if (r.violations.length) throw new Error(`the clean run ${r.runId} (seed ${seed}) violates: ${r.violations.join("; ")}`);
  const opened = await openStore({ url: target.url, dataDir: target.dataDir });
  try {
    return (await opened.store.readRun(r.runId)).map((e) => e.type);
  } finally {
    await opened.close();
  }
}

function countsOf(types: string[]): Map<string, number> {
  return types.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>());
}

/**
 * Where in a clean run a point falls (the index in its log of the event it
 * names, or of the one it comes nearest): a chain arms its points in this
 * order, so a restarted process, which goes on from where the run was, still
 * has the next point ahead of it. Recovery's points go last: written only when
 * the crash before left something to recover, they are the likeliest not to
 * be reached, and a point not reached costs no more there than the clean
 * process that finishes the run anyway.
 */
function positionIn(types: string[], point: string): number {
  if (!canOpenChain(point)) return Infinity;
  const [family, name, nth] = point.split(":");
  const nearest: Record<string, string> = { record_effect: "tool_completed", read_counter: "tool_completed", budget_reservation: "budget_reserved", lease_takeover: "" };
  const type = family.endsWith("_commit") ? name : nearest[name];
  if (!type) return -1;
  let seen = 0;
  return types.findIndex((t) => t === type && ++seen === Number(nth));
}

/** Chains for one engine: every variant's points, shuffled, cut into chains; points a chain never reached go round once more. */
async function soak(engine: Engine, lanes: Lane[]): Promise<void> {
  const queue: { seed: number; points: string[] }[] = [];
  let nextSeed = 1;
  for (let round = 0; round < rounds[engine]; round++) {
    for (const [variant, types] of written) {
      const points = shuffle(pointsFor(countsOf(types), maxNth), nextSeed);
      while (points.length) {
        const chain = points.splice(0, chainLength).sort((a, b) => positionIn(types, a) - positionIn(types, b));
        // A chain opens with a point a fresh run can reach.
        const first = chain.findIndex(canOpenChain);
        if (first < 0) continue;
        chain.unshift(...chain.splice(first, 1));
        while (variantOf(nextSeed) !== variant) nextSeed++;
        queue.push({ seed: nextSeed++, points: chain });
      }
    }
  }
  if (env.SOAK_MAX_RUNS) queue.splice(Number(env.SOAK_MAX_RUNS));
  const minutes = (engine === "pglite" && env.SOAK_PGLITE_MINUTES) || env.SOAK_MINUTES;
  const until = minutes ? Date.now() + Number(minutes) * 60_000 : Infinity;
  const retried = new Set<string>();
  await Promise.all(
    lanes.map(async (lane) => {
      for (let job = queue.shift(); job && Date.now() < until; job = queue.shift()) {
        try {
          const r = await runChain(lane.target, counter, job.points, job.seed);
          results.push(r);
          const again = r.unused.filter((p) => !retried.has(p) && canOpenChain(p));
          again.forEach((p) => retried.add(p));
          const types = written.get(variantOf(job.seed))!;
          if (again.length) queue.push({ seed: job.seed + 3 * 1000, points: again.sort((a, b) => positionIn(types, a) - positionIn(types, b)) });
          if (env.SOAK_OUT) await appendFile(env.SOAK_OUT, `${JSON.stringify({ ...r, outputs: undefined })}\n`);
          if (r.violations.length && env.SOAK_LOG) {
            await mkdir(env.SOAK_LOG, { recursive: true });
            await writeFile(join(env.SOAK_LOG, `${r.runId}.log`), `${JSON.stringify({ ...r, outputs: undefined })}\n\n${r.outputs.join("\n---\n")}`);
          }
          process.stderr.write(r.violations.length ? "X" : String(r.steps.filter((s) => s.crashed).length));
        } catch (e) {
          errors.push(`${engine} seed ${job.seed} [${job.points.join(" ")}]: ${(e as Error).message.slice(0, 2000)}`);
          process.stderr.write("E");
        }
      }
    }),
  );
  process.stderr.write("\n");
}

function shuffle<T>(items: T[], seed: number): T[] {
  let x = seed * 2654435761 + 7;
  for (let i = items.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function report(): void {
  if (results.length) reportCrashes();
  reportInfra();
  const crashes = results.reduce((n, r) => n + r.steps.filter((s) => s.crashed && s.armed).length, 0);
  const violations = results.reduce((n, r) => n + r.violations.length, 0) + infra.results.reduce((n, r) => n + r.violations.length, 0);
  const infraRuns = infra.results.reduce((n, r) => n + r.runs, 0);
  console.log(
    `\n${results.length} runs, ${crashes} crashes; ${infraRuns} runs under ${infra.results.length} restarts and full disks; ${violations} violations, ${errors.length} harness errors, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const r of results.filter((x) => x.violations.length)) {
    console.log(`  ${r.target} run ${r.runId} seed ${r.seed} [${r.steps.map((s) => `${s.armed || "clean"}${s.crashed ? "†" : ""}`).join(" → ")}]`);
    for (const v of r.violations) console.log(`    ${v}`);
  }
  for (const e of errors) console.log(`  harness error: ${e}`);
  process.exitCode = violations || errors.length ? 1 : 0;
}

/** Crash point family x engine, and which event types' boundaries were crashed at. */
function reportCrashes(): void {
  const crashesOf = (r: ChainResult) => r.steps.filter((s) => s.crashed && s.armed);
  const rows: (string | number)[][] = [];
  for (const engine of ["postgres", "pglite"] as const) {
    const mine = results.filter((r) => r.target === engine);
    if (!mine.length) continue;
    const families = [...new Set(mine.flatMap((r) => r.steps.filter((s) => s.armed).map((s) => familyOf(s.armed).family)))].sort();
    for (const family of families) {
      const armedIn = mine.filter((r) => r.steps.some((s) => s.armed && familyOf(s.armed).family === family));
      const steps = mine.flatMap((r) => r.steps.filter((s) => s.armed && familyOf(s.armed).family === family));
      const crashedIn = mine.filter((r) => crashesOf(r).some((s) => familyOf(s.armed).family === family));
      rows.push([family, engine, armedIn.length, steps.length, steps.filter((s) => s.crashed).length, crashedIn.reduce((n, r) => n + r.violations.length, 0)]);
    }
    rows.push(["all", engine, mine.length, mine.reduce((n, r) => n + r.steps.filter((s) => s.armed).length, 0), mine.reduce((n, r) => n + crashesOf(r).length, 0), mine.reduce((n, r) => n + r.violations.length, 0)]);
  }
  table(["crash point family", "engine", "runs", "armed", "crashes", "violations"], rows);

  // Crashes per event type and commit family, both engines: which boundaries were met.
  const byType = new Map<string, number[]>();
  for (const r of results) {
    for (const s of crashesOf(r)) {
      const { family, type } = familyOf(s.armed);
      if (!type) continue;
      const cells = byType.get(type) ?? [0, 0, 0, 0, 0, 0];
      cells[["before_commit", "during_commit", "after_commit"].indexOf(family) + (r.target === "pglite" ? 3 : 0)]++;
      byType.set(type, cells);
    }
  }
  console.log("");
  table(
    ["event type", "PG before", "PG during", "PG after", "PGlite before", "PGlite during", "PGlite after"],
    eventTypes.filter((t) => byType.has(t)).map((t) => [t, ...byType.get(t)!]),
  );
  const never = eventTypes.filter((t) => !byType.has(t));
  for (const t of never) console.log(`not crashed at: ${t}${NOT_COVERED[t] ? ` (${NOT_COVERED[t]})` : RECOVERY_TYPES.includes(t) ? " (written on recovery; not reached)" : ""}`);
}

/** Restarts and full disks: each fault x engine, summed over its rounds, and every violation. */
function reportInfra(): void {
  if (!infra.results.length && !infra.skipped.length) return;
  const groups = new Map<string, InfraResult[]>();
  for (const r of infra.results) groups.set(`${r.fault}\t${r.engine}`, [...(groups.get(`${r.fault}\t${r.engine}`) ?? []), r]);
  const sum = (rs: InfraResult[], f: (r: InfraResult) => number) => rs.reduce((n, r) => n + f(r), 0);
  const span = (rs: InfraResult[]) => `${Math.min(...rs.map((r) => r.faultMs / 1000)).toFixed(1)}-${Math.max(...rs.map((r) => r.faultMs / 1000)).toFixed(1)}`;
  console.log("");
  if (groups.size) {
    table(
      ["infrastructure fault", "engine", "rounds", "runs", "interrupted", "failed executors", "lost", "doubled", "violations", "down or full (s)"],
      [...groups].map(([key, rs]) => {
        const [fault, engine] = key.split("\t");
        return [fault, engine === "pglite" ? "PGlite" : "PostgreSQL", rs.length, sum(rs, (r) => r.runs), sum(rs, (r) => r.interrupted), sum(rs, (r) => r.failedExecutors), sum(rs, (r) => r.lost), sum(rs, (r) => r.doubled), sum(rs, (r) => r.violations.length), span(rs)];
      }),
    );
  }
  for (const s of infra.skipped) console.log(`skipped: ${s}`);
  for (const r of infra.results.filter((x) => x.violations.length)) {
    console.log(`  ${describeInfra(r)}`);
    for (const v of r.violations) console.log(`    ${v}`);
  }
}

function table(header: string[], rows: (string | number)[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => `| ${cells.map((c, i) => (typeof c === "number" ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (typeof rows[0]?.[i] === "number" ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`);
  for (const r of rows) console.log(line(r));
}
