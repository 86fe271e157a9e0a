import { openStore } from "../events/openStore.ts";
import { planRun, submitRun } from "../runs/index.ts";
import { askedCapsFromFlags } from "./capFlags.ts";
import type { Invocation } from "./command.ts";
import { modelConfigured } from "./config.ts";

/** `ariadne submit QUESTION`: the same check of the request as `ariadne run` and `POST /v1/runs` (runs/planRun). */
export async function submitCommand({ flags, positionals, out, config, storeOptions }: Invocation): Promise<number> {
  const configured = modelConfigured(config);
  const plan = await planRun(
    { question: positionals.length ? positionals.join(" ") : undefined, offline: flags.bool("offline"), caps: askedCapsFromFlags(flags.record()), traceparent: config.telemetry.traceparent, singleAgent: flags.bool("single-agent") },
    { modelConfigured: configured, nothingAsked: configured ? "refuse" : "scenario" },
  );
  const { store, close } = await openStore(storeOptions);
  try {
    const run = await submitRun(store, plan);
    out(flags.bool("json") ? JSON.stringify({ runId: run.runId, mainExecutorId: run.mainExecutorId }) : run.runId);
    return 0;
  } finally {
    await close();
  }
}
