import { openStore } from "../db/index.ts";
import { chooseRun, submitRun } from "../runs/index.ts";
import { parseCommand, storeOptionsOf } from "./parseCommand.ts";

const USAGE = `usage: ariadne submit [QUESTION] [--offline] [--json]

Records a run for workers (ariadne worker) and prints its id; nothing runs here.
A question needs ANTHROPIC_API_KEY; with --offline, or with no question and no key,
the run is the scripted offline scenario.

options:
  --offline          the scripted offline scenario, whatever the environment
  --json             print {"runId": ..., "mainExecutorId": ...}
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne submit QUESTION`. */
export async function submitCommand(argv: string[], out: (line: string) => void, env = process.env): Promise<number> {
  const { values, positionals } = parseCommand(argv, { offline: { type: "boolean", default: false }, json: { type: "boolean", default: false } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const modelConfigured = !!env.ANTHROPIC_API_KEY;
  const choice = chooseRun(
    { question: positionals.length ? positionals.join(" ") : undefined, offline: values.offline },
    { modelConfigured, nothingAsked: modelConfigured ? "refuse" : "scenario" },
  );
  const offline = choice.kind === "scenario";
  const { store, close } = await openStore(storeOptionsOf(env, values["data-dir"]));
  try {
    const run = await submitRun(store, { question: choice.question, options: offline ? { mode: "offline", scenario: choice.scenario } : { mode: "model" } });
    out(values.json ? JSON.stringify({ runId: run.runId, mainExecutorId: run.mainExecutorId }) : run.runId);
    return 0;
  } finally {
    await close();
  }
}
