import { Runtime, type Answer } from "../actors/index.ts";
import { openStore, type OpenOptions } from "../db/index.ts";
import { sealRun } from "../events/sealRun.ts";
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
    });
    log(`store: ${database.location}`);
    log(`question: ${question}`);
    const run = await runtime.startRun(question);
    const outcome = await run.result;
    // Sealed once settled: the root hash printed below commits to every executor stream of the run.
    const { rootHash } = await sealRun(store, run);
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
          rootHash,
        }),
      );
    } else if (outcome.kind === "answer") {
      options.out("");
      for (const line of renderAnswer(outcome.answer as Answer, handoffs)) options.out(line);
      options.out(`run ${run.runId} · ${events.length} events · transcripts by executor id in the log`);
    } else {
      options.out(`run ${run.runId} ended without an answer: ${outcome.kind}${"reason" in outcome ? `: ${outcome.reason}` : ""}`);
    }
    if (!options.json) options.out(`root hash ${rootHash} · check later with: ariadne verify ${run.runId} --root ${rootHash}`);
    return outcome.kind === "answer" ? 0 : 1;
  } finally {
    await close();
  }
}
