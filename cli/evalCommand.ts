import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ValidationError, fromZodIssues } from "../core/errors.ts";
import { openStore } from "../events/openStore.ts";
import { ACCURACY_MARGIN, Baseline, GATED, compareToBaseline, describeRegression } from "../eval/compareToBaseline.ts";
import { OFFLINE_SUITE_DIR, loadSuite } from "../eval/loadSuite.ts";
import { renderComparison, renderTable } from "../eval/renderTable.ts";
import { summarize, summaryLine } from "../eval/summarize.ts";
import { type Lane, runSuite } from "../eval/runSuite.ts";
import { createModel, resolveModels } from "../models/index.ts";
import { CORPUS_DIR } from "../runs/host/scenarioCorpus.ts";
import type { Invocation } from "./command.ts";
import { hostSettings } from "./config.ts";
import { UsageError } from "./usage.ts";
import type { AriadneConfig } from "./config.ts";
import { loadGoldSuite } from "../eval/gold/loadGoldSuite.ts";
import { renderGoldTable, summarizeGold } from "../eval/gold/renderGoldTable.ts";
import { type GoldLane, runGoldSuite } from "../eval/gold/runGoldSuite.ts";
import { errorLine } from "./errorLine.ts";

/** `ariadne eval`: a suite run in this process, its scores as a table or JSON, and the baseline gate. */
export async function evalCommand({ flags, positionals, out, config, storeOptions }: Invocation): Promise<number> {
  const values = { baseline: flags.string("baseline"), json: flags.bool("json"), record: flags.bool("record"), "single-agent": flags.bool("single-agent"), corpus: flags.string("corpus"), out: flags.string("out") };
  const suiteFile = flags.string("suite");
  if (suiteFile !== undefined) return goldEval({ ...values, lane: flags.string("lane"), suite: suiteFile }, positionals, out, config, storeOptions);
  // The lane is one of the table's choices and trials within their bounds (cli/commands/storeCommands.ts); a SUITE folder runs scripted by default.
  const lane = (flags.string("lane") ?? "scripted") as Lane;
  if ((lane as string) === "baseline") throw new UsageError("--lane baseline grades a gold suite: give --suite FILE.jsonl");
  if (values.record && lane !== "replay") throw new UsageError("--record refreshes the replay lane's recordings: use it with --lane replay");
  if (values["single-agent"] && lane === "replay") throw new UsageError("--single-agent is not for --lane replay: its recordings are of the delegating runs");
  const trials = flags.number("trials")!;
  const realModel = () => createModel(config.model);
  if ((lane === "live" || values.record) && !realModel()) throw new UsageError(`--lane ${lane}${values.record ? " --record" : ""} asks the real model: set ANTHROPIC_API_KEY`);
  const baseline = values.baseline === undefined ? undefined : await readBaseline(values.baseline);
  const cases = await loadSuite(resolve(positionals[0] ?? OFFLINE_SUITE_DIR));

  const { store, database, close } = await openStore(storeOptions);
  let suite;
  try {
    suite = await runSuite(cases, {
      database,
      store,
      lane,
      record: values.record,
      realModel: () => realModel()!,
      judge: lane === "live" ? { model: realModel()!, name: resolveModels(config.model).main } : undefined,
      trials,
      singleAgent: values["single-agent"],
      corpusDir: resolve(values.corpus ?? config.corpusDir ?? CORPUS_DIR),
      settings: hostSettings(config),
      // Progress on stderr, so stdout keeps the table (or the JSON) and the last line.
      onCase: (c) => errorLine(`eval: ${c.caseId} (${c.variant}) ${c.failures.length ? `FAIL: ${c.failures.join("; ")}` : "pass"} · run ${c.runId}`),
    });
  } finally {
    await close();
  }
  const regressions = baseline ? compareToBaseline(suite.cases, baseline) : [];
  const passed = suite.cases.filter((c) => c.failures.length === 0).length;
  const failed = suite.cases.length - passed;
  const result = {
    suite: positionals[0] ?? "offline",
    ...suite,
    summary: summarize(suite.cases),
    passed,
    failed,
    ...(baseline && { gate: { baseline: values.baseline, margin: ACCURACY_MARGIN, metrics: GATED, regressions } }),
  };
  if (values.out) await writeFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) out(JSON.stringify(result));
  else {
    for (const line of renderTable(suite.cases)) out(line);
    out("");
    if (suite.comparisons) {
      for (const line of renderComparison(suite.comparisons)) out(line);
      out("");
    }
    out(summaryLine(result.summary));
    if (suite.live) for (const l of suite.live) out(`${l.caseId}: pass^${l.k} ${l.passK ? "yes" : "no"} (${l.passes} of ${l.k} trials passed)`);
    if (baseline) out(regressions.length ? `baseline ${values.baseline}: accuracy dropped:\n${regressions.map((r) => `  ${describeRegression(r)}`).join("\n")}` : `baseline ${values.baseline}: accuracy holds (margin ${ACCURACY_MARGIN})`);
  }
  out(`${passed} passed, ${failed} failed`);
  return failed === 0 && regressions.length === 0 ? 0 : 1;
}

async function readBaseline(file: string): Promise<Baseline> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    throw new ValidationError(`invalid baseline ${file}`, [{ path: [], message: (e as Error).message }]);
  }
  const parsed = Baseline.safeParse(raw);
  if (!parsed.success) throw new ValidationError(`invalid baseline ${file}`, fromZodIssues(parsed.error.issues));
  return parsed.data;
}

type GoldValues = { baseline?: string; json: boolean; lane?: string; record: boolean; "single-agent": boolean; corpus?: string; out?: string; suite: string };
const GOLD_LANES: readonly GoldLane[] = ["baseline", "live"];

/**
 * `ariadne eval --suite FILE.jsonl`: a gold suite, every line checked before
 * anything runs, each case answered by the lane's researcher and graded
 * (eval/gold/); the table, the baseline gate, and `N passed, N failed` last.
 */
async function goldEval(values: GoldValues, positionals: string[], out: (line: string) => void, config: AriadneConfig, storeOptions: Invocation["storeOptions"]): Promise<number> {
  const lane = (values.lane ?? "baseline") as GoldLane;
  if (positionals.length) throw new UsageError("--suite names the suite file: give no SUITE folder with it");
  if (!GOLD_LANES.includes(lane)) throw new UsageError(`--suite runs --lane baseline or live, got "${values.lane}"`);
  if (values.record || values["single-agent"] || values.corpus) throw new UsageError("--record, --single-agent and --corpus are for SUITE folders; a --suite file names each case's corpus");
  const realModel = () => createModel(config.model);
  if (lane === "live" && !realModel()) throw new UsageError("--lane live asks the configured model, and none is configured: set ANTHROPIC_API_KEY (or run --lane baseline, the scripted baseline researcher)");
  const baseline = values.baseline === undefined ? undefined : await readBaseline(values.baseline);
  const cases = await loadGoldSuite(resolve(values.suite));

  const { store, database, close } = await openStore(storeOptions);
  let scores;
  try {
    scores = await runGoldSuite(cases, {
      database,
      store,
      lane,
      realModel: () => realModel()!,
      settings: hostSettings(config),
      onCase: (c) => errorLine(`eval: ${c.caseId} ${c.failures.length ? `FAIL: ${c.failures.join("; ")}` : "pass"} · run ${c.runId}`),
    });
  } finally {
    await close();
  }
  const regressions = baseline ? compareToBaseline(scores, baseline) : [];
  const passed = scores.filter((c) => c.failures.length === 0).length;
  const failed = scores.length - passed;
  const summary = summarizeGold(scores);
  const result = {
    suite: values.suite,
    lane,
    ...(lane === "baseline" && { researcher: "scripted baseline researcher (models/baseline/): not a language model; tokens estimated" }),
    cases: scores,
    summary,
    passed,
    failed,
    ...(baseline && { gate: { baseline: values.baseline, margin: ACCURACY_MARGIN, metrics: GATED, regressions } }),
  };
  if (values.out) await writeFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) out(JSON.stringify(result));
  else {
    if (lane === "baseline") out("lane baseline: the scripted baseline researcher answered (a policy, not a language model); cost marked * is estimated");
    for (const line of renderGoldTable(scores, summary)) out(line);
    out("");
    if (baseline) out(regressions.length ? `baseline ${values.baseline}: accuracy dropped:\n${regressions.map((r) => `  ${describeRegression(r)}`).join("\n")}` : `baseline ${values.baseline}: accuracy holds (margin ${ACCURACY_MARGIN})`);
  }
  out(`${passed} passed, ${failed} failed`);
  return failed === 0 && regressions.length === 0 ? 0 : 1;
}
