import { pathToFileURL } from "node:url";
import { Runtime } from "../actors/index.ts";
import type { EventStore } from "../events/index.ts";
import { hostRun, leaseOwner, submitRun } from "../runs/index.ts";
import { ToolRegistry } from "../tools/index.ts";
import { openBenchPostgres } from "./overheadEngines.ts";
import { TURNS_PER_RUN, TurnMarks, noopLookup, overheadModel } from "./overheadScenario.ts";

/**
 * The overhead scenario with a lease held against the same scenario without:
 * leased runs are submitted, hosted under their lease (appends fenced by the
 * epoch in the same SQL call, heartbeat on a timer, the run's row finished at
 * the end); bare runs call Runtime.startRun on the unfenced store. Sides
 * alternate, so drift on a shared machine hits both. Aim: within 10%.
 *
 *   node --import tsx bench/overheadLease.ts
 */
const RUNS = Number(process.env.LEASE_BENCH_RUNS ?? 5);
const CONCURRENT = 10;
const ROUNDS = 3;

export async function main(): Promise<void> {
  const bench = await openBenchPostgres();
  const database = bench.store.database;
  const runtimeOver = (store: EventStore) => {
    const model = overheadModel(new TurnMarks());
    return new Runtime({
      store,
      models: { main: model, child: model },
      modelNames: { main: "bench-main", child: "bench-child" },
      tools: new ToolRegistry().register(noopLookup),
    });
  };
  const bare = async () => (await (await runtimeOver(bench.store).startRun("overhead bench, no lease")).result).kind;
  const leased = async () => {
    const { lease } = await submitRun(bench.store, { question: "overhead bench, leased", options: { mode: "offline" } }, undefined, {
      owner: leaseOwner("bench"),
      ttlMs: 15_000,
    });
    const r = await hostRun({ database, store: bench.store, buildRuntime: (s) => runtimeOver(s), ttlMs: 15_000 }, lease!).done;
    return r.kind === "finished" ? r.outcome.kind : r.kind;
  };
  const measure = async (one: () => Promise<string>, concurrent: boolean) => {
    const n = concurrent ? CONCURRENT : RUNS;
    const t = performance.now();
    const outcomes = concurrent ? await Promise.all(Array.from({ length: n }, one)) : await sequence(n, one);
    if (outcomes.some((o) => o !== "answer")) throw new Error(`a bench run ended with ${outcomes.join(", ")}`);
    return (n * TURNS_PER_RUN) / ((performance.now() - t) / 1000);
  };
  try {
    console.log(`· lease overhead: ${bench.describe}; ${ROUNDS} rounds, sides alternating`);
    await measure(bare, false);
    await measure(leased, false);
    for (const concurrent of [false, true]) {
      const sums = { bare: 0, leased: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (["bare", "leased"] as const) : (["leased", "bare"] as const);
        for (const side of order) sums[side] += await measure(side === "bare" ? bare : leased, concurrent);
      }
      const label = concurrent ? `${CONCURRENT} runs at once` : `${RUNS} runs one after the other`;
      const [b, l] = [sums.bare / ROUNDS, sums.leased / ROUNDS];
      console.log(`  ${label.padEnd(28)} no lease ${b.toFixed(0).padStart(5)} turns/s · lease held ${l.toFixed(0).padStart(5)} turns/s · ${(l / b).toFixed(2)}x (aim >= 0.90x)`);
    }
  } finally {
    await bench.close();
  }
}

async function sequence(n: number, one: () => Promise<string>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await one());
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
