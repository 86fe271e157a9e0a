import { openStore } from "../../events/openStore.ts";
import { submitRun } from "../../runs/index.ts";
import { start } from "../runs/processes.ts";
import { bundled } from "./bundle.ts";
import type { startEffectCounter } from "./effectCounter.ts";
import { type FaultTarget, invariants } from "./harness.ts";

type Counter = Awaited<ReturnType<typeof startEffectCounter>>;

export interface ChainStep {
  /** `name:nth` as armed, or "" for the clean process that finishes the run. */
  armed: string;
  mode: "worker" | "resume";
  crashed: boolean;
}

export interface ChainResult {
  runId: string;
  seed: number;
  target: "postgres" | "pglite";
  steps: ChainStep[];
  /** Points never armed: the run ended before their turn in the chain. */
  unused: string[];
  violations: string[];
  /** What each process printed, for a violation's report. */
  outputs: string[];
}

/** A chain whose processes never finish the run is a harness failure, not an endless loop. */
const MAX_CLEAN = 3;

/**
 * One run crashed again and again: the first process (a worker, as a run is
 * first taken) is armed at the chain's first point, each restart at the next
 * one, so every process start is one crash; once the points are used up (or a
 * process gets to the end of the run without passing its point) the run is
 * finished by a clean process and the invariants are checked. Restarts are a
 * `resume` or a second worker taking the expired lease, by seed and position
 * (always a worker for `during:lease_takeover`; on PGlite, one process at a
 * time, resume otherwise).
 */
export async function runChain(target: FaultTarget, counter: Counter, points: readonly string[], seed: number): Promise<ChainResult> {
  const script = await bundled("tests/faults/faultProcess.ts");
  const env = {
    DATABASE_URL: target.url ?? "",
    FAULT_DATA_DIR: target.dataDir ?? "",
    FAULT_EFFECT_URL: counter.url,
    FAULT_SEED: String(seed),
    FAULT_LEASE_MS: "1000",
    // Long enough to take over an expired lease (800 ms), short enough not to linger once the run is done.
    FAULT_IDLE_MS: "1200",
  };
  const withStore = async <T>(f: (o: Awaited<ReturnType<typeof openStore>>) => Promise<T>) => {
    const opened = await openStore({ url: target.url, dataDir: target.dataDir });
    try {
      return await f(opened);
    } finally {
      await opened.close();
    }
  };
  const { runId } = await withStore((o) => submitRun(o.store, { question: `fault chain seed ${seed}: ${points.join(" ")}`, options: { mode: "offline" } }));
  const steps: ChainStep[] = [];
  const outputs: string[] = [];
  const unused: string[] = [];
  let finished = false;
  for (let i = 0, clean = 0; !finished; i++) {
    const armed = points[i] ?? "";
    if (!armed && ++clean > MAX_CLEAN) throw new Error(`run ${runId}: not finished after ${MAX_CLEAN} clean processes:\n${outputs.join("\n---\n")}`);
    // The clean finish is a resume: it leaves as soon as the run is done, a worker only once idle.
    const mode = i === 0 || armed.startsWith("during:lease_takeover") || (armed && !target.dataDir && (seed + i) % 2 === 0) ? "worker" : "resume";
    const p = start(mode === "worker" ? ["worker"] : ["resume", runId], { ...env, ARIADNE_CRASH_AT: armed }, script);
    const code = await p.exited;
    outputs.push(`[${mode}${armed ? ` armed at ${armed}` : ""}: ${code}]\n${p.output()}`);
    const crashed = code === "SIGKILL";
    if (!crashed && code !== 0) throw new Error(`run ${runId}: a ${mode} process failed (${code}):\n${outputs.join("\n---\n")}`);
    steps.push({ armed, mode, crashed });
    // A process that did not crash went on to the end of its run (or gave it back: then another goes on).
    finished = !crashed && /\bfinished:/.test(p.output());
    if (finished) unused.push(...points.slice(i + 1));
  }
  const violations = await withStore((o) => invariants(o, counter, runId));
  return { runId, seed, target: target.url ? "postgres" : "pglite", steps, unused, violations, outputs };
}
