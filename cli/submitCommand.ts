import { openStore } from "../events/openStore.ts";
import { chooseRun, submitRun } from "../runs/index.ts";
import { type AriadneConfig, modelConfigured, storeOptionsOf } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";

const USAGE = `usage: ariadne submit [QUESTION] [--offline] [--json]

Records a run for workers (ariadne worker) and prints its id; nothing runs here.
A question needs ANTHROPIC_API_KEY; with --offline, or with no question and no key,
the run is the scripted offline scenario.

options:
  --offline          the scripted offline scenario, whatever the environment
  --json             print {"runId": ..., "mainExecutorId": ...}
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne submit QUESTION`. */
export async function submitCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(argv, { offline: { type: "boolean", default: false }, json: { type: "boolean", default: false } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const configured = modelConfigured(config);
  const choice = chooseRun(
    { question: positionals.length ? positionals.join(" ") : undefined, offline: values.offline },
    { modelConfigured: configured, nothingAsked: configured ? "refuse" : "scenario" },
  );
  const offline = choice.kind === "scenario";
  const { store, close } = await openStore(storeOptionsOf(config, values["data-dir"]));
  try {
    const run = await submitRun(store, { question: choice.question, options: offline ? { mode: "offline", scenario: choice.scenario } : { mode: "model" } });
    out(values.json ? JSON.stringify({ runId: run.runId, mainExecutorId: run.mainExecutorId }) : run.runId);
    return 0;
  } finally {
    await close();
  }
}
