import { Runtime, type RuntimeOptions } from "../actors/index.ts";
import { type Caps, createRunGovernance } from "../governance/index.ts";
import type { ReviewMode } from "../actors/index.ts";
import { openStore, type OpenOptions } from "../db/index.ts";
import { sealRun } from "../events/sealRun.ts";
import { createModel, resolveModels } from "../models/index.ts";
import type { Model } from "../models/types.ts";
import type { RecordedEvent } from "../events/index.ts";
import { projectRun } from "../projections/index.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../scenarios/offlineResearch.ts";
import { BLANK_QUESTION, chooseQuestion } from "./chooseQuestion.ts";
import { cliTools } from "./cliTools.ts";
import { progressPrinter } from "./progress.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";
import { renderHandoff } from "./renderHandoff.ts";
import { runView } from "./runView.ts";

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
 */
export async function runResearch(options: RunOptions): Promise<number> {
  const env = options.env ?? process.env;
  const choice = chooseQuestion(options.question, env);
  if (choice.kind === "blank") {
    console.error(`ariadne: ${BLANK_QUESTION}`);
    return 2;
  }
  const real = choice.kind === "real" ? createModel(env, { idleTimeoutMs: options.modelIdleTimeoutMs }) : null;
  const names = resolveModels(env);
  const model: Model = real ?? offlineResearchModel();
  const question = choice.kind === "real" ? choice.question : OFFLINE_QUESTION;
  const log = options.json ? (line: string) => console.error(line) : options.out;

  const { store, database, close } = await openStore(options);
  try {
    const runtime = new Runtime({
      store,
      models: { main: model, child: model },
      modelNames: real ? { main: names.main, child: names.child } : { main: "scripted:main", child: "scripted:child" },
      tools: cliTools(),
      onEvent: withRunIdFirst(progressPrinter(log), (runId) => {
        // The run id comes first, so a run whose process dies can still be found.
        log(`run ${runId}`);
        if (choice.kind === "offline") console.error(choice.note);
        log(`store: ${database.location}`);
        log(`question: ${question}`);
      }),
      limits: options.limits,
      // The run's shared budget, Remind and limits: consulted before every model and tool call.
      governance: ({ post }) => createRunGovernance({ db: store.database, post, caps: options.caps }),
      reviewer: options.reviewer,
    });
    const run = await runtime.startRun(question);
    const outcome = await run.result;
    // Sealed once settled: the root hash printed below commits to every executor stream of the run.
    const { rootHash } = await sealRun(store, run);
    const projected = await projectRun(store, run.runId);
    const view = runView(projected);
    const handoffs = handoffsOf(view);

    if (options.json) {
      options.out(
        JSON.stringify({
          runId: run.runId,
          mainExecutorId: run.mainExecutorId,
          store: database.location,
          scripted: !real,
          outcome: outcome.kind,
          answer: view.answer,
          reason: "reason" in outcome ? outcome.reason : null,
          // Whole: findings with evidence, measurement basis, artifacts, gaps, execution state, confidence.
          handoffs: Object.fromEntries(handoffs),
          status: projected.status,
          events: projected.events,
          rootHash,
        }),
      );
    } else if (view.answer) {
      options.out("");
      for (const line of renderAnswer(view.answer, handoffs)) options.out(line);
      options.out(`run ${run.runId} · ${projected.events} events · ${WHERE_NEXT(run.runId)}`);
    } else {
      options.out(`run ${run.runId} ended without an answer: ${outcome.kind}${"reason" in outcome ? `: ${outcome.reason}` : ""}`);
      // What the Children found still counts when Main could not finish.
      options.out(view.handoffs.length ? `What the Children handed back (${view.handoffs.length}):` : "No Child handed anything back.");
      for (const h of view.handoffs) for (const line of renderHandoff(h)) options.out(line);
      options.out(WHERE_NEXT(run.runId));
    }
    if (!options.json) options.out(`root hash ${rootHash} · check later with: ariadne verify ${run.runId} --root ${rootHash}`);
    return outcome.kind === "answer" ? 0 : 1;
  } finally {
    await close();
  }
}

const WHERE_NEXT = (runId: string) => `ariadne show ${runId} for the executor tree and handoffs, ariadne transcript EXECUTOR_ID for one executor's transcript`;

/** Calls `first` with the run id before the run's first event is printed. */
function withRunIdFirst(onEvent: (e: RecordedEvent) => void, first: (runId: string) => void) {
  let started = false;
  return (e: RecordedEvent) => {
    if (!started) first(e.metadata.runId);
    started = true;
    onEvent(e);
  };
}
