import { openStore } from "../db/index.ts";
import { createModel } from "../models/index.ts";
import { submitRun } from "../runs/index.ts";
import { OFFLINE_QUESTION } from "../scenarios/offlineResearch.ts";
import { parseCommand, storeOptionsOf } from "./parseCommand.ts";

const USAGE = `usage: ariadne submit [QUESTION] [--offline] [--json]

Records a run for workers (ariadne worker) and prints its id; nothing runs here.
Without ANTHROPIC_API_KEY, or with --offline, the run is the scripted offline scenario.

options:
  --offline          the scripted offline scenario, whatever the environment
  --json             print {"runId": ..., "mainExecutorId": ...}
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne submit QUESTION`. */
export async function submitCommand(argv: string[], out: (line: string) => void, env = process.env): Promise<number> {
  const { values, positionals } = parseCommand(argv, { offline: { type: "boolean", default: false }, json: { type: "boolean", default: false } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const offline = values.offline || !createModel(env);
  const question = offline ? OFFLINE_QUESTION : positionals.join(" ");
  if (!question.trim()) throw new Error(`a question is required with the configured model\n\n${USAGE}`);
  const { store, close } = await openStore(storeOptionsOf(env, values["data-dir"]));
  try {
    const run = await submitRun(store, { question, options: { mode: offline ? "offline" : "model" } });
    out(values.json ? JSON.stringify({ runId: run.runId, mainExecutorId: run.mainExecutorId }) : run.runId);
    if (!values.json && offline && positionals.length) console.error("note: no model configured, so the offline scripted scenario was submitted instead of your question");
    return 0;
  } finally {
    await close();
  }
}
