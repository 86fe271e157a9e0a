import pg from "pg";
import { openStore } from "../../events/openStore.ts";
import { submitRun } from "../../runs/index.ts";
import { type Proc, start } from "../runs/processes.ts";
import type { OwnCluster } from "../support/ownCluster.ts";
import type { SmallDisk } from "../support/smallDisk.ts";
import { bundled } from "./bundle.ts";
import type { startEffectCounter } from "./effectCounter.ts";
import { type FaultTarget, invariants } from "./harness.ts";

/**
 * Faults of the infrastructure under hosted runs, as opposed to a process dying
 * at a crash point: the database restarted (PostgreSQL, fast or immediate, down
 * for a while) and the store's disk filling up. A round submits a few runs of
 * the fault scenario, hosts them with worker processes, strikes while their
 * Children work, then lets them finish (a run a full disk interrupted is
 * resumed once there is space) and checks every run with the harness's
 * invariants, and that no executor recorded `failed`: a restart or a full disk
 * is never an executor's failure.
 */
type Counter = Awaited<ReturnType<typeof startEffectCounter>>;

export interface InfraResult {
  fault: string;
  engine: "postgres" | "pglite";
  runs: number;
  /** Executors that recorded `failed` (each one a run failed by infrastructure). */
  failedExecutors: number;
  /** Runs a full disk interrupted (resumed afterwards). */
  interrupted: number;
  /** Runs not final after the round (lost). */
  lost: number;
  /** Violations about something happening twice (a handoff consumed, an effect run, a tool use id). */
  doubled: number;
  violations: string[];
  /** How long the database was down (restart), or the disk full (disk). */
  faultMs: number;
  durationMs: number;
}

const WORKER_ENV = { FAULT_LEASE_MS: "5000", FAULT_IDLE_MS: "3000", FAULT_LATENCY_MS: "900", FAULT_LOG: "1" };
/** A round whose processes are still going after this is a harness error, not an endless wait. */
const ROUND_DEADLINE_MS = 300_000;

export async function restartRound(o: { cluster: OwnCluster; url: string; counter: Counter; seed: number; runs: number; mode: "fast" | "immediate"; downMs: number }): Promise<InfraResult> {
  const began = Date.now();
  const runIds = await submit({ url: o.url }, o.seed, o.runs);
  const workers = await startWorkers({ url: o.url }, o.counter, o.seed, 2);
  let faultMs = 0;
  await orKill(workers, async () => {
    await childrenAtWork(o.url, runIds, workers);
    const down = Date.now();
    await o.cluster.stop(o.mode);
    try {
      await sleep(o.downMs);
    } finally {
      await o.cluster.start();
    }
    faultMs = Date.now() - down;
    await finish(workers);
  });
  return check({ url: o.url }, o.counter, `restart -m ${o.mode}`, runIds, 0, faultMs, began);
}

/** The disk under the store fills while the runs work; once the workers gave them up, space is freed and each is resumed. */
export async function diskFullRound(o: { target: FaultTarget; disk: SmallDisk; counter: Counter; seed: number; runs: number; strikeAfterMs: number }): Promise<InfraResult> {
  const began = Date.now();
  const runIds = await submit(o.target, o.seed, o.runs);
  const workers = await startWorkers(o.target, o.counter, o.seed, o.target.url ? 2 : 1);
  let faultMs = 0;
  await orKill(workers, async () => {
    if (o.target.url) await childrenAtWork(o.target.url, runIds, workers);
    else await sleep(o.strikeAfterMs); // the worker holds PGlite's one connection: time it instead
    const full = Date.now();
    try {
      await o.disk.fill();
      // Every run is either done or given up for the full disk (or a while has passed: appends that fit in a page go on).
      const gaveUp = (id: string) => workers.some((w) => new RegExp(`run ${id} (finished|released|fenced)`).test(w.output()));
      for (const until = Date.now() + 30_000; Date.now() < until && !runIds.every(gaveUp); ) await sleep(250);
    } finally {
      await o.disk.free();
    }
    faultMs = Date.now() - full;
    await finish(workers);
  });
  const interrupted = runIds.filter((id) => workers.some((w) => new RegExp(`run ${id} released: no space left on device`).test(w.output())));
  // What the full disk stopped is finished by an operator's resume, once there is space.
  for (const id of runIds.filter((x) => !workers.some((w) => new RegExp(`run ${x} finished`).test(w.output())))) {
    const p = start(["resume", id], await processEnv(o.target, o.counter, o.seed), await bundled("tests/faults/faultProcess.ts"));
    const code = await deadline(p, ROUND_DEADLINE_MS);
    if (code !== 0) throw new Error(`resume of run ${id} after the full disk exited ${code}:\n${p.output()}`);
  }
  return check(o.target, o.counter, "disk full", runIds, interrupted.length, faultMs, began);
}

async function submit(target: FaultTarget, seed: number, n: number): Promise<string[]> {
  const { store, close } = await openStore({ url: target.url, dataDir: target.dataDir });
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await submitRun(store, { question: `infrastructure fault, seed ${seed}, run ${i}`, options: { mode: "offline" } })).runId);
    return ids;
  } finally {
    await close();
  }
}

async function processEnv(target: FaultTarget, counter: Counter, seed: number): Promise<Record<string, string>> {
  return { ...WORKER_ENV, DATABASE_URL: target.url ?? "", FAULT_DATA_DIR: target.dataDir ?? "", FAULT_EFFECT_URL: counter.url, FAULT_SEED: String(seed) };
}

async function startWorkers(target: FaultTarget, counter: Counter, seed: number, n: number): Promise<Proc[]> {
  const script = await bundled("tests/faults/faultProcess.ts");
  const env = await processEnv(target, counter, seed);
  return Array.from({ length: n }, () => start(["worker"], env, script));
}

/** Until every run has a Child admitted (read on a connection of its own, so a restart cannot hide it). */
async function childrenAtWork(url: string, runIds: string[], workers: Proc[]): Promise<void> {
  for (const until = Date.now() + 120_000; Date.now() < until; await sleep(200)) {
    if (workers.every((w) => w.child.exitCode !== null)) throw new Error(`the workers ended before the fault:\n${workers.map((w) => w.output()).join("\n---\n")}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      const r = await client.query<{ n: number }>(
        `SELECT count(DISTINCT run_id)::int AS n FROM ariadne_events WHERE type = 'executor_admitted' AND data->>'role' = 'child' AND run_id = ANY($1)`,
        [runIds],
      );
      if (r.rows[0].n === runIds.length) return;
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw new Error("the runs' Children never started");
}

/** A round that goes wrong leaves no worker behind to disturb the next. */
async function orKill(workers: Proc[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
    throw e;
  }
}

async function finish(workers: Proc[]): Promise<void> {
  const codes = await Promise.all(workers.map((w) => deadline(w, ROUND_DEADLINE_MS)));
  if (codes.some((c) => c !== 0)) throw new Error(`a worker exited ${codes.join(", ")}:\n${workers.map((w) => w.output()).join("\n---\n")}`);
}

async function check(target: FaultTarget, counter: Counter, fault: string, runIds: string[], interrupted: number, faultMs: number, began: number): Promise<InfraResult> {
  const opened = await openStore({ url: target.url, dataDir: target.dataDir });
  try {
    const violations: string[] = [];
    let failedExecutors = 0;
    for (const id of runIds) {
      const found = await invariants(opened, counter, id);
      violations.push(...found.map((v) => `run ${id}: ${v}`));
      const failed = (await opened.store.readRun(id)).filter((e) => e.type === "failed");
      failedExecutors += failed.length;
      violations.push(...failed.map((e) => `run ${id}: executor ${e.metadata.executorId} failed: ${(e.data as { reason?: string }).reason}`));
    }
    return {
      fault,
      engine: target.url ? "postgres" : "pglite",
      runs: runIds.length,
      failedExecutors,
      interrupted,
      lost: new Set(violations.filter((v) => /: final: /.test(v)).map((v) => v.split(":")[0])).size,
      doubled: violations.filter((v) => /twice|\d+ times|committed \d+ handoffs/.test(v)).length,
      violations,
      faultMs,
      durationMs: Date.now() - began,
    };
  } finally {
    await opened.close();
  }
}

/** The process's exit code, or "hung" (and killed) once `ms` have passed. */
async function deadline(p: Proc, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.exited, new Promise<string>((r) => (timer = setTimeout(() => r("hung"), ms)))]);
  clearTimeout(timer);
  if (code === "hung") p.child.kill("SIGKILL");
  return code;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
