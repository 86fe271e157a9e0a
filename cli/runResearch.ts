import type { ReviewMode, RuntimeOptions } from "../actors/index.ts";
import { openStore, type OpenOptions } from "../db/index.ts";
import type { Caps } from "../governance/index.ts";
import { hostRun, leaseMs, leaseOwner, runtimeFactory, submitRun } from "../runs/index.ts";
import { progressPrinter } from "./progress.ts";
import { OFFLINE_QUESTION } from "../scenarios/offlineResearch.ts";
import { BLANK_QUESTION, chooseQuestion } from "./chooseQuestion.ts";
import { hostInForeground } from "./hostInForeground.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { renderRunResult } from "./renderRunResult.ts";

export interface RunOptions extends OpenOptions {
  /** As given on the command line; undefined when none was given. */
  question?: string;
  json: boolean;
  out: (line: string) => void;
  env?: Record<string, string | undefined>;
  /** --model-idle-timeout, in ms; wins over ARIADNE_MODEL_IDLE_TIMEOUT_MS. */
  modelIdleTimeoutMs?: number;
  /** The run's caps (cli/capFlags.ts), at most the configured maximum; the run's governance enforces them. */
  caps?: Caps;
  /** Per-executor limits frozen at admission, from the cap flags given. */
  limits?: RuntimeOptions["limits"];
  /** Reviewer mode for the run (off by default). */
  reviewer?: ReviewMode;
}

/**
 * `ariadne run`: one research run. With ANTHROPIC_API_KEY and a question, the
 * real model answers it; otherwise the offline scripted scenario runs, and says so.
 * The run is recorded with its options and leased like a worker's, so a crash or a
 * Ctrl-C leaves it resumable (`ariadne resume RUN`) with the same caps and mode.
 */
export async function runResearch(options: RunOptions): Promise<number> {
  const env = options.env ?? process.env;
  const choice = chooseQuestion(options.question, env);
  if (choice.kind === "blank") {
    console.error(`ariadne: ${BLANK_QUESTION}`);
    return 2;
  }
  const question = choice.kind === "real" ? choice.question : OFFLINE_QUESTION;
  const log = options.json ? (line: string) => console.error(line) : options.out;

  const { store, database, close } = await openStore(options);
  try {
    const ttlMs = leaseMs(env);
    const runOptions = {
      mode: choice.kind === "real" ? ("model" as const) : ("offline" as const),
      caps: options.caps,
      limits: options.limits as Record<string, Record<string, number>> | undefined,
      reviewer: options.reviewer ?? "off",
      modelIdleTimeoutMs: options.modelIdleTimeoutMs,
    };
    const { runId, lease } = await submitRun(store, { question, options: runOptions }, undefined, { owner: leaseOwner("run"), ttlMs });
    // The run id comes first, so a run whose process dies can still be found.
    log(`run ${runId}`);
    if (choice.kind === "offline") console.error(choice.note);
    log(`store: ${database.location}`);
    log(`question: ${question}`);
    const hosted = hostRun({ database, store, buildRuntime: runtimeFactory(env, { progress: () => progressPrinter(log) }), ttlMs, sealKey: sealSigningKey(env) }, lease!);
    const result = await hostInForeground(hosted, log);
    return await renderRunResult(result, { store, location: database.location, lease: lease!, json: options.json, out: options.out });
  } finally {
    await close();
  }
}
