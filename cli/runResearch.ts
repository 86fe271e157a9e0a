import type { ReviewMode } from "../actors/index.ts";
import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { type AskedCaps, hostRun, leaseOwner, planRun, runtimeFactory, submitRun } from "../runs/index.ts";
import { type AriadneConfig, hostSettings, modelConfigured, searchChoice } from "./config.ts";
import { AriadneError } from "../core/errors.ts";
import { progressPrinter } from "./progress.ts";
import { scenarioNote } from "./scenarioNote.ts";
import { sandboxNote } from "./sandboxNote.ts";
import { findScenario } from "../scenarios/index.ts";
import { hostInForeground } from "./hostInForeground.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { renderRunResult } from "./renderRunResult.ts";
import { lostDatabase } from "./lostDatabase.ts";
import { installTelemetry } from "./installTelemetry.ts";
import type { LiveTerminal } from "./live/liveTerminal.ts";
import { liveView } from "./live/liveView.ts";
import { errorLine } from "./errorLine.ts";

export interface RunOptions extends OpenOptions {
  /** As given on the command line; undefined when none was given. */
  question?: string;
  /** --scenario NAME: a scripted offline scenario (scenarios/index.ts). */
  scenario?: string;
  json: boolean;
  out: (line: string) => void;
  config: AriadneConfig;
  /** --model-idle-timeout, in ms; wins over ARIADNE_MODEL_IDLE_TIMEOUT_MS. */
  modelIdleTimeoutMs?: number;
  /** The caps the cap flags ask for (cli/capFlags.ts); runs/planRun resolves them, and the turn and tool-call ones freeze at admission. */
  caps?: AskedCaps;
  /** Reviewer mode for the run (off by default). */
  reviewer?: ReviewMode;
  /** A terminal to draw the live view on (cli/live/); absent or null: progress as plain lines. Never with --json. */
  terminal?: LiveTerminal | null;
  /** --single-agent: one executor with every tool but delegate (runs/planRun.ts refuses what conflicts). */
  singleAgent?: boolean;
  /** --model baseline: the scripted baseline researcher answers the question (models/baseline/). */
  baseline?: boolean;
}

/**
 * `ariadne run`: one research run. A question goes to the configured model and
 * is refused when there is none (runs/chooseRun.ts); a scripted offline scenario
 * runs when asked for (--scenario) or when no question is given, and says so.
 * The run is recorded with its options and leased like a worker's, so a crash or a
 * Ctrl-C leaves it resumable (`ariadne resume RUN`) with the same caps and mode.
 * A refused request throws before any store is opened.
 */
export async function runResearch(options: RunOptions): Promise<number> {
  const configured = modelConfigured(options.config);
  const plan = await planRun(
    {
      question: options.question,
      scenario: options.scenario,
      caps: options.caps,
      reviewer: options.reviewer,
      modelIdleTimeoutMs: options.modelIdleTimeoutMs,
      traceparent: options.config.telemetry.traceparent,
      singleAgent: options.singleAgent,
      baseline: options.baseline,
    },
    { modelConfigured: configured, nothingAsked: "scenario" },
  );
  const { choice, question } = plan;
  const log = options.json ? errorLine : options.out;
  // A real question searches with the one configured provider; a wrong setting is refused before any store is opened.
  const search = choice.kind === "scenario" ? null : searchChoice(options.config);
  if (search && "problem" in search) throw new AriadneError("USAGE", 400, (search as { problem: string }).problem);

  // Prerequisites before anything is recorded: a signing key that cannot be read must not leave a run behind.
  const sealKey = sealSigningKey(options.config.sealKeys);
  const { store, database, close } = await openStore(options);
  const telemetry = await installTelemetry(options.config.telemetry, store, errorLine);
  try {
    const ttlMs = options.config.leaseMs;
    const { runId, lease } = await submitRun(store, plan, undefined, { owner: leaseOwner("run"), ttlMs });
    // The run id comes first, so a run whose process dies can still be found.
    log(`run ${runId}`);
    if (choice.kind === "scenario") errorLine(scenarioNote(choice, configured));
    if (choice.kind === "baseline") log("model: the baseline researcher (scripted, not a language model; tokens estimated)");
    // With no provider configured (or Anthropic's, which runs only in a model's calls), the baseline researcher searches the corpus's local index (runs/host/runtimeFactory.ts).
    if (search) log(choice.kind === "baseline" && (search.provider === null || search.provider === "anthropic") ? "web search: the local index of the corpus (pages, PDFs, data), served on loopback (ARIADNE_CORPUS_DIR)" : search.says);
    const missingSandbox = choice.kind === "scenario" ? sandboxNote(findScenario(choice.scenario)) : null;
    if (missingSandbox) errorLine(missingSandbox);
    log(`store: ${database.location}`);
    log(`question: ${question}`);
    // On a terminal, the executor tree drawn in place (the run's events folded as they are recorded); else a line per step.
    const view = options.terminal && !options.json ? liveView(options.terminal.stream, { color: options.terminal.color }) : null;
    try {
      return await hostHere();
    } catch (e) {
      // Recorded, then the database went away for longer than this command waits: say so, and how to finish it.
      throw lostDatabase(e, runId);
    } finally {
      view?.close();
    }
    async function hostHere(): Promise<number> {
      view?.applyAll(await store.readRun(runId));
      const progress = view ? () => view.apply : () => progressPrinter(log);
      const hosted = hostRun({ database, store, buildRuntime: runtimeFactory(hostSettings(options.config), { progress }), ttlMs, sealKey }, lease!);
      const result = await hostInForeground(hosted, view ? view.log : log);
      // The last frame from the whole log: the host's own facts (interrupted, sealed) never pass through the runtime's events.
      if (view) await store.readRun(runId).then(view.reset, () => undefined);
      view?.close();
      return await renderRunResult(result, { store, location: database.location, lease: lease!, json: options.json, out: options.out });
    }
  } finally {
    // The run's last spans are exported before the store closes.
    await telemetry?.stop();
    await close();
  }
}
