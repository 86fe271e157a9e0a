import { openStore, type OpenOptions } from "../db/index.ts";
import { createModel } from "../models/index.ts";
import { hostRun, leaseOwner, submitRun } from "../runs/index.ts";
import { OFFLINE_QUESTION } from "../scenarios/offlineResearch.ts";
import { hostInForeground } from "./hostInForeground.ts";
import { renderRunResult } from "./renderRunResult.ts";
import { leaseMs, runtimeFactory } from "./runtimeFactory.ts";

export interface RunOptions extends OpenOptions {
  question?: string;
  json: boolean;
  out: (line: string) => void;
  env?: Record<string, string | undefined>;
}

/**
 * `ariadne run`: one research run. With ANTHROPIC_API_KEY and a question, the
 * real model answers it; otherwise the offline scripted scenario runs, and says so.
 * The run is recorded and leased like a worker's, so a crash or a Ctrl-C leaves
 * it resumable (`ariadne resume RUN`).
 */
export async function runResearch(options: RunOptions): Promise<number> {
  const env = options.env ?? process.env;
  const real = options.question ? createModel(env) : null;
  const question = real ? options.question! : OFFLINE_QUESTION;
  const log = options.json ? (line: string) => console.error(line) : options.out;
  if (!real) {
    log(
      options.question
        ? "note: ANTHROPIC_API_KEY is not set, so the offline scripted scenario runs instead of your question."
        : "offline scenario: scripted models over a synthetic corpus (set ANTHROPIC_API_KEY and pass a question for a real run).",
    );
  }

  const { store, database, close } = await openStore(options);
  try {
    log(`store: ${database.location}`);
    log(`question: ${question}`);
    const ttlMs = leaseMs(env);
    const { runId, lease } = await submitRun(store, { question, options: { mode: real ? "model" : "offline" } }, undefined, {
      owner: leaseOwner("run"),
      ttlMs,
    });
    log(`run: ${runId}`);
    const hosted = hostRun({ database, store, buildRuntime: runtimeFactory(env, log), ttlMs }, lease!);
    const result = await hostInForeground(hosted, log);
    return await renderRunResult(result, { store, location: database.location, lease: lease!, json: options.json, out: options.out });
  } finally {
    await close();
  }
}
