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

/** `ariadne eval`: a suite run in this process, its scores as a table or JSON, and the baseline gate. */
export async function evalCommand({ flags, positionals, out, config, storeOptions }: Invocation): Promise<number> {
  const values = { baseline: flags.string("baseline"), json: flags.bool("json"), record: flags.bool("record"), "single-agent": flags.bool("single-agent"), corpus: flags.string("corpus"), out: flags.string("out") };
  // The lane is one of the three and trials within their bounds: the table checked both (cli/commands/storeCommands.ts).
  const lane = flags.string("lane") as Lane;
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
