import { openStore } from "../events/openStore.ts";
import { planRun, submitRun } from "../runs/index.ts";
import { CAP_FLAG_OPTIONS, askedCapsFromFlags, capFlagsUsage } from "./capFlags.ts";
import { type AriadneConfig, modelConfigured, storeOptionsOf } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";

const USAGE = `usage: ariadne submit [QUESTION] [--offline] [--single-agent] [--json] [cap flags]

Records a run for workers (ariadne worker) and prints its id; nothing runs here.
A question needs ANTHROPIC_API_KEY; with --offline, or with no question and no key,
the run is the scripted offline scenario.

options:
  --offline          the scripted offline scenario, whatever the environment
  --single-agent     one executor with every tool but delegate and no Children (as for ariadne run)
  --json             print {"runId": ..., "mainExecutorId": ...}
  --data-dir DIR     embedded store directory when DATABASE_URL is unset

run caps, as for ariadne run (lower than the configured maximum, never higher):
${capFlagsUsage()}`;

/** `ariadne submit QUESTION`: the same check of the request as `ariadne run` and `POST /v1/runs` (runs/planRun). */
export async function submitCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { offline: { type: "boolean", default: false }, "single-agent": { type: "boolean", default: false }, json: { type: "boolean", default: false }, ...CAP_FLAG_OPTIONS },
    USAGE,
  );
  if (values.help) return (out(USAGE), 0);
  const configured = modelConfigured(config);
  const plan = await planRun(
    { question: positionals.length ? positionals.join(" ") : undefined, offline: values.offline, caps: askedCapsFromFlags(values), traceparent: config.telemetry.traceparent, singleAgent: values["single-agent"] },
    { modelConfigured: configured, nothingAsked: configured ? "refuse" : "scenario" },
  );
  const { store, close } = await openStore(storeOptionsOf(config, values["data-dir"]));
  try {
    const run = await submitRun(store, plan);
    out(values.json ? JSON.stringify({ runId: run.runId, mainExecutorId: run.mainExecutorId }) : run.runId);
    return 0;
  } finally {
    await close();
  }
}
