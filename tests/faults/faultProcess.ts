/**
 * One process of the fault harness: `worker` serves the database until idle,
 * `resume RUN` finishes one run. ARIADNE_CRASH_AT arms a crash point; the
 * parent test kills nothing itself, the process kills itself there.
 *
 * env: DATABASE_URL (or FAULT_DATA_DIR for PGlite), FAULT_EFFECT_URL, FAULT_SEED, FAULT_LEASE_MS,
 * FAULT_LATENCY_MS (each scripted reply's delay; default none), FAULT_LOG (print the worker's lines)
 */
import { armCrashPoint } from "../../core/crashPoint.ts";
import { openStore } from "../../events/openStore.ts";
import { resumeRun, runWorker } from "../../runs/index.ts";
import { faultRuntime } from "./faultScenario.ts";

const [mode, runId] = process.argv.slice(2);
const env = process.env;
armCrashPoint(env.ARIADNE_CRASH_AT);
const ttlMs = Number(env.FAULT_LEASE_MS ?? 1000);
const buildRuntime = faultRuntime({ effectUrl: env.FAULT_EFFECT_URL!, seed: Number(env.FAULT_SEED ?? 1), latencyMs: Number(env.FAULT_LATENCY_MS ?? 0) });
const { store, database, close } = await openStore({ url: env.DATABASE_URL || undefined, dataDir: env.FAULT_DATA_DIR });
try {
  if (mode === "worker") {
    // FAULT_LOG: the worker's own lines (took, finished, released), for a harness that watches them.
    const log = env.FAULT_LOG ? (line: string) => console.log(line) : undefined;
    const { results } = await runWorker({ database, store, buildRuntime, ttlMs, pollMs: 100, idleExitMs: Number(env.FAULT_IDLE_MS ?? 1500), log });
    console.log(`results: ${results.map((r) => (r.kind === "finished" ? `finished:${r.outcome.kind}` : `${r.kind}:${"reason" in r ? r.reason : ""}`)).join(", ")}`);
  } else if (mode === "resume") {
    const result = await (await resumeRun({ database, store, buildRuntime, ttlMs, waitMs: 10 * ttlMs }, runId)).done;
    console.log(`result: ${result.kind}${result.kind === "finished" ? `:${result.outcome.kind}` : ""}`);
  } else {
    throw new Error(`usage: faultProcess.ts worker | resume RUN`);
  }
} finally {
  await close();
}
