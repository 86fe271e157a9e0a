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
import { SHARED_CORPUS_DIR } from "../runs/scenarioCorpus.ts";
import { type AriadneConfig, hostSettings } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";
import { UsageError } from "./usage.ts";
import { loadGoldSuite } from "../eval/gold/loadGoldSuite.ts";
import { renderGoldTable, summarizeGold } from "../eval/gold/renderGoldTable.ts";
import { type GoldLane, runGoldSuite } from "../eval/gold/runGoldSuite.ts";

export const EVAL_USAGE = `usage: ariadne eval [SUITE] [--baseline FILE] [--json] [--lane scripted|replay|live] [--record]
                   [--single-agent] [--trials K] [--corpus DIR] [--out FILE] [--data-dir DIR]
       ariadne eval --suite FILE.jsonl [--lane baseline|live] [--baseline FILE] [--json] [--out FILE]

A research benchmark graded against gold answers (--suite): one JSON case a line,
  {"id", "question", "answer", "answer_type": "number|text|list|set", "tolerance", "evidence": [URL, …],
   "corpus": DIR, "note"}
where DIR (relative to the file) has the shared corpus's layout (web/manifest.jsonl, pdf/manifest.jsonl, data/);
a bad line exits 2 naming the line and the field. Each case is answered over its corpus (served on loopback,
searched over its pages, PDFs and data files) by the lane's researcher:
  baseline   (default) the baseline researcher: a scripted policy, no language model, no API key
  live       the configured model (ANTHROPIC_API_KEY)
and graded: correct when the answer (its summary and supported observed claims) states the gold number
within tolerance, holds the gold text (normalised), every item of a set, or a list's items in order;
evidence recall, the share of the gold evidence URLs among the sources the answer cites; support, the
share of the cited quotes found verbatim in the stored text they cite; tokens, cost, wall time. A case
passes when correct and the run's own checks hold (numbers in their sources, citations valid, no advice).

Runs a suite's cases and scores each run from its log and the checker. SUITE is a folder of cases,
one folder each with a case.json (question, scenario or corpus lookup, expected and forbidden
items); with none, the shipped offline suite (eval/suites/offline: corpus lookups over the shared
corpus and the three scenarios). Each case is run in this process on the configured store, one
after another; its runs stay in the store (ariadne audit RUN, report RUN).

lanes:
  scripted   (default) the cases' scripted models: offline, no API key, exact metrics
  replay     the model's responses recorded beside each case (replay.jsonl), keyed by the sha256 of
             the canonical request (the digest each turn event records); a request not recorded fails
             the case, naming the nearest recorded request and where it differs. --record refreshes
             them: every request goes to the configured model (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
  live       the configured model, K trials a case (--trials, default 3), each judged by the model on
             a rubric (factual accuracy, citation accuracy, completeness, source quality, tool
             efficiency); a failed verdict is judged twice more and the majority kept; a case passes
             when all K trials pass (pass^k)

metrics (per case of a SUITE folder): coverage (expected items in the answer's supported claims; a
phrase in a not_collected, judgment or flagged claim counts for nothing), claim support rate (supported of the
observed claims), citation validity (citations whose finding and tool calls are in the log; must be
100%), fabricated citations (must be 0), number faithfulness (numbers found in the cited texts),
advice violations, Main's peak and total input tokens, tokens and cost per answer and per supported
claim (* estimated: scripted tokens), wasted Child tokens (Children the answer does not cite),
duplicate fetches, wall time. A case fails on a missing answer, coverage below its minCoverage, a
forbidden item, a number its cited sources do not state, a citation not valid or fabricated, or advice.
The table's last column says what a case measures: "plumbing" when the script that wrote the answer
gave its expected phrases too (the scenarios, the scripted lane), so it shows the runtime carried them.

options:
  --single-agent   also run each case as a single agent holding every tool (ariadne run --single-agent;
                   scripted: the case's script done in one context), score it alike (variant
                   single-agent) and print a second table: Main's peak and total input tokens, total
                   tokens and cost, delegating against single agent (and their ratio), and each one's
                   support rate. Not with --lane replay (recordings are of delegating runs)
  --baseline FILE  a stored --json result: exit 1 when a case's support rate, number faithfulness,
                   citation validity, coverage (or a gold case's accuracy) is lower than the baseline's by
                   more than ${ACCURACY_MARGIN} (absolute), its supported claims fewer by more than ${ACCURACY_MARGIN * 100}%, or a
                   baseline case is not scored
  --json           print the result as one JSON object (then the last line)
  --out FILE       also write the JSON result to FILE (e.g. a new baseline)
  --corpus DIR     the shared corpus the cases read (default ARIADNE_CORPUS_DIR, else ../shared/corpus
                   beside the repository)

Prints a Markdown table of the scores, then \`N passed, N failed\` as its last line. Exit 0 when every
case passed and the baseline holds, 1 otherwise, 2 on bad usage.`;

const LANES: readonly Lane[] = ["scripted", "replay", "live"];
const GOLD_LANES: readonly GoldLane[] = ["baseline", "live"];

/** `ariadne eval`: a suite run in this process, its scores as a table or JSON, and the baseline gate. */
export async function evalCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      baseline: { type: "string" },
      json: { type: "boolean", default: false },
      // No default here: a SUITE folder runs scripted, a --suite file baseline, unless --lane says otherwise.
      lane: { type: "string" },
      record: { type: "boolean", default: false },
      "single-agent": { type: "boolean", default: false },
      trials: { type: "string", default: "3" },
      corpus: { type: "string" },
      out: { type: "string" },
      suite: { type: "string" },
    },
    EVAL_USAGE,
  );
  if (values.help) return (out(EVAL_USAGE), 0);
  if (values.suite !== undefined) return goldEval(values, positionals, out, config);
  if (values.lane === "baseline") throw new UsageError("--lane baseline grades a gold suite: give --suite FILE.jsonl");
  if (positionals.length > 1) throw new UsageError(`eval takes at most one suite folder, got ${positionals.length}`);
  const lane = (values.lane ?? "scripted") as Lane;
  if (!LANES.includes(lane)) throw new UsageError(`--lane takes scripted, replay or live, got "${values.lane}"`);
  if (values.record && lane !== "replay") throw new UsageError("--record refreshes the replay lane's recordings: use it with --lane replay");
  if (values["single-agent"] && lane === "replay") throw new UsageError("--single-agent is not for --lane replay: its recordings are of the delegating runs");
  const trials = Number(values.trials);
  if (!Number.isInteger(trials) || trials < 1) throw new UsageError(`--trials takes a positive integer, got "${values.trials}"`);
  const realModel = () => createModel(config.model);
  if ((lane === "live" || values.record) && !realModel()) throw new UsageError(`--lane ${lane}${values.record ? " --record" : ""} asks the real model: set ANTHROPIC_API_KEY`);
  const baseline = values.baseline === undefined ? undefined : await readBaseline(values.baseline);
  const cases = await loadSuite(resolve(positionals[0] ?? OFFLINE_SUITE_DIR));

  const { store, database, close } = await openStore({ url: config.databaseUrl, dataDir: values["data-dir"] });
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
      corpusDir: resolve(values.corpus ?? config.corpusDir ?? SHARED_CORPUS_DIR),
      settings: hostSettings(config),
      // Progress on stderr, so stdout keeps the table (or the JSON) and the last line.
      onCase: (c) => console.error(`eval: ${c.caseId} (${c.variant}) ${c.failures.length ? `FAIL: ${c.failures.join("; ")}` : "pass"} · run ${c.runId}`),
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

type EvalValues = { baseline?: string; json?: boolean; lane?: string; record?: boolean; "single-agent"?: boolean; corpus?: string; out?: string; suite?: string; "data-dir"?: string };

/**
 * `ariadne eval --suite FILE.jsonl`: a gold suite, every line checked before
 * anything runs, each case answered by the lane's researcher and graded
 * (eval/gold/); the table, the overall line, the baseline gate, and
 * `N passed, N failed` last.
 */
async function goldEval(values: EvalValues, positionals: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const lane = (values.lane ?? "baseline") as GoldLane;
  if (positionals.length) throw new UsageError("--suite names the suite file: give no SUITE folder with it");
  if (!GOLD_LANES.includes(lane)) throw new UsageError(`--suite runs --lane baseline or live, got "${values.lane}"`);
  if (values.record || values["single-agent"] || values.corpus) throw new UsageError("--record, --single-agent and --corpus are for SUITE folders; a --suite file names each case's corpus");
  const realModel = () => createModel(config.model);
  if (lane === "live" && !realModel()) throw new UsageError("--lane live asks the configured model, and none is configured: set ANTHROPIC_API_KEY (or run --lane baseline, the scripted baseline researcher)");
  const baseline = values.baseline === undefined ? undefined : await readBaseline(values.baseline);
  const file = resolve(values.suite!);
  const cases = await loadGoldSuite(file);

  const { store, database, close } = await openStore({ url: config.databaseUrl, dataDir: values["data-dir"] });
  let scores;
  try {
    scores = await runGoldSuite(cases, {
      database,
      store,
      lane,
      realModel: () => realModel()!,
      settings: hostSettings(config),
      onCase: (c) => console.error(`eval: ${c.caseId} ${c.failures.length ? `FAIL: ${c.failures.join("; ")}` : "pass"} · run ${c.runId}`),
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
