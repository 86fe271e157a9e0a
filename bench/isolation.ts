import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../events/openStore.ts";
import { costMicros, priceOf } from "../governance/prices.ts";
import { DEFAULT_MODELS } from "../models/config.ts";
import { type IsolationFigures, compareIsolation } from "../projections/index.ts";
import { hostRun, leaseOwner, planRun, runtimeFactory, submitRun, takeLease } from "../runs/index.ts";
import { CORPUS_DIR } from "../runs/host/scenarioCorpus.ts";
import { scenarioNames } from "../scenarios/index.ts";
import { openblasEnv } from "../tools/index.ts";

/**
 * What isolation buys, measured: each offline scenario run delegated and as a
 * single agent (`--single-agent`) on an embedded store, compared with
 * compareIsolation (projections/isolationComparison.ts). The models are
 * scripted, so tokens are estimated (four characters a token) and priced here
 * at the default models' list prices (Main's model for Main, the Child model
 * for Children), as a configured run would be. `npm run bench -- isolation [SCENARIO...]`;
 * ARIADNE_CORPUS_DIR names the corpus when it is not the repository's corpus/.
 */
export async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => scenarioNames().includes(a));
  const scenarios = wanted.length ? wanted : scenarioNames();
  const corpusDir = process.env.ARIADNE_CORPUS_DIR ?? CORPUS_DIR;
  if (!existsSync(corpusDir)) throw new Error(`the corpus is missing at ${corpusDir}: set ARIADNE_CORPUS_DIR`);
  const dir = await mkdtemp(join(tmpdir(), "ariadne-isolation-"));
  const { store, database, close } = await openStore({ dataDir: join(dir, "data") });
  try {
    const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: join(dir, "workspaces"), corpusDir });
    const runOf = async (scenario: string, singleAgent: boolean) => {
      const plan = await planRun({ scenario, singleAgent }, { modelConfigured: false, nothingAsked: "scenario" });
      const { runId } = await submitRun(store, plan);
      const lease = await takeLease(database, { owner: leaseOwner("bench"), ttlMs: 60_000, runId });
      const result = await hostRun({ database, store, buildRuntime, ttlMs: 60_000 }, lease!).done;
      if (result.kind !== "finished") throw new Error(`${scenario}${singleAgent ? " (single agent)" : ""}: ${JSON.stringify(result)}`);
      return { runId, events: await store.readRun(runId) };
    };
    console.log(`| scenario | run | executors | Main peak input | Main input | total tokens | cost at ${DEFAULT_MODELS.main} / ${DEFAULT_MODELS.child} prices (USD, est.) | observed claims chained / claims the checker supports |`);
    console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for (const scenario of scenarios) {
      const c = compareIsolation(await runOf(scenario, false), await runOf(scenario, true));
      console.log(row(scenario, "delegated", c.delegated));
      console.log(row(scenario, "single agent", c.singleAgent));
      const r = c.ratios;
      const cost = (costAt(c.singleAgent) / costAt(c.delegated)).toFixed(2);
      console.log(`| ${scenario} | single / delegated | | ${r.mainPeakInputTokens}× | ${r.mainInputTokens}× | ${r.totalTokens}× | ${cost}× | |`);
    }
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What the run would cost at the default models' list prices: Main's tokens at Main's, the rest at the Child's. */
function costAt(f: IsolationFigures): number {
  const main = costMicros(priceOf(DEFAULT_MODELS.main), f.mainInputTokens, f.mainOutputTokens);
  return main + costMicros(priceOf(DEFAULT_MODELS.child), f.inputTokens - f.mainInputTokens, f.outputTokens - f.mainOutputTokens);
}

const n = (x: number) => x.toLocaleString("en-US");

function row(scenario: string, label: string, f: IsolationFigures): string {
  const claims = `${f.claims.supported}/${f.claims.observed} · ${f.claims.checkerSupported ?? "–"}/${f.claims.total}`;
  return `| ${scenario} | ${label} | ${f.executors} | ${n(f.mainPeakInputTokens)} | ${n(f.mainInputTokens)} | ${n(f.totalTokens)} | ${(costAt(f) / 1e6).toFixed(4)} | ${claims} |`;
}
