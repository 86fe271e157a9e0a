import { Runtime } from "../actors/index.ts";
import { ConfigError } from "../core/errors.ts";
import { createModel, resolveModels } from "../models/index.ts";
import type { BuildRuntime } from "../runs/index.ts";
import { offlineResearchModel } from "../scenarios/offlineResearch.ts";
import { ToolRegistry, createCorpusTools } from "../tools/index.ts";
import { progressPrinter } from "./progress.ts";

/**
 * How the command line builds the runtime for a run it hosts (run, resume,
 * worker): the run's mode picks the scripted offline scenario or the configured
 * model; the store is the one the run's lease gives (fenced, drainable).
 */
export function runtimeFactory(env: Record<string, string | undefined>, log: (line: string) => void): BuildRuntime {
  return (store, lease) => {
    const offline = lease.options.mode === "offline";
    const real = offline ? null : createModel(env);
    if (!offline && !real) {
      throw new ConfigError(`run ${lease.runId} asks for the configured model: set ANTHROPIC_API_KEY to run it`);
    }
    const latencyMs = Number(env.ARIADNE_SCRIPTED_LATENCY_MS ?? 0) || undefined;
    const model = real ?? offlineResearchModel({ latencyMs });
    const names = resolveModels(env);
    return new Runtime({
      store,
      models: { main: model, child: model },
      modelNames: real ? { main: names.main, child: names.child } : { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(...createCorpusTools()),
      onEvent: progressPrinter(log),
    });
  };
}

/** Lease time to live for runs this process hosts (ARIADNE_LEASE_MS, default 15 s). */
export const leaseMs = (env: Record<string, string | undefined>) => Number(env.ARIADNE_LEASE_MS ?? 15_000) || 15_000;
