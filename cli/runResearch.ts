import { Runtime, type Answer, type RuntimeOptions } from "../actors/index.ts";
import type { Caps } from "../governance/index.ts";
import { openStore, type OpenOptions } from "../db/index.ts";
import { createModel, resolveModels } from "../models/index.ts";
import type { Model } from "../models/types.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../scenarios/offlineResearch.ts";
import { ToolRegistry, createCorpusTools } from "../tools/index.ts";
import { progressPrinter } from "./progress.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";

export interface RunOptions extends OpenOptions {
  question?: string;
  json: boolean;
  out: (line: string) => void;
  env?: Record<string, string | undefined>;
  /** The run's caps (cli/capFlags.ts); the governance port enforces them once the runtime consults it. */
  caps?: Caps;
  /** Per-executor limits frozen at admission, from the cap flags given. */
  limits?: RuntimeOptions["limits"];
}

/**
 * `ariadne run`: one research run. With ANTHROPIC_API_KEY and a question, the
 * real model answers it; otherwise the offline scripted scenario runs, and says so.
 */
export async function runResearch(options: RunOptions): Promise<number> {
  const env = options.env ?? process.env;
  const real = options.question ? createModel(env) : null;
  const names = resolveModels(env);
  const model: Model = real ?? offlineResearchModel();
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
    const runtime = new Runtime({
      store,
      models: { main: model, child: model },
      modelNames: real ? { main: names.main, child: names.child } : { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(...createCorpusTools()),
      onEvent: progressPrinter(log),
      limits: options.limits,
    });
    log(`store: ${database.location}`);
    log(`question: ${question}`);
    const run = await runtime.startRun(question);
    const outcome = await run.result;
    const events = await store.readRun(run.runId);
    const handoffs = handoffsOf(events);

    if (options.json) {
      options.out(
        JSON.stringify({
          runId: run.runId,
          mainExecutorId: run.mainExecutorId,
          store: database.location,
          scripted: !real,
          outcome: outcome.kind,
          answer: outcome.kind === "answer" ? outcome.answer : null,
          reason: "reason" in outcome ? outcome.reason : null,
          handoffs: Object.fromEntries(handoffs),
          events: events.length,
        }),
      );
    } else if (outcome.kind === "answer") {
      options.out("");
      for (const line of renderAnswer(outcome.answer as Answer, handoffs)) options.out(line);
      options.out(`run ${run.runId} · ${events.length} events · transcripts by executor id in the log`);
    } else {
      options.out(`run ${run.runId} ended without an answer: ${outcome.kind}${"reason" in outcome ? `: ${outcome.reason}` : ""}`);
    }
    return outcome.kind === "answer" ? 0 : 1;
  } finally {
    await close();
  }
}
