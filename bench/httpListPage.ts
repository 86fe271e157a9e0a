import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { createScratchDatabase } from "../db/scratchDatabase.ts";
import { openStore } from "../events/openStore.ts";
import { createApiKey } from "../db/apiKeys.ts";
import { openApiServer } from "../http/openApiServer.ts";
import { runViewOf } from "../http/runs/runViewOf.ts";
import { foldRun, projectRun, runView } from "../projections/index.ts";
import { listRuns } from "../runs/listRuns.ts";
import { submitQueued } from "./httpList.ts";

/**
 * A cold `GET /v1/runs?limit=200` on 10,000 runs (issue 33, item 7), on
 * PostgreSQL: the page as the API builds it now (the rows, then every run's
 * events in one query, folded in memory; http/runs/leasedRuns.ts) beside the
 * way it was built before (a projection, so a query, per run). Each figure is
 * the first page read (of a freshly opened server: no finished-run cache),
 * then the median of 20 more; the new way is timed in process as well as over
 * HTTP, to tell the page's reads from the server's own cost. The aim: under
 * 100 ms. The runs are queued ones (one event each): the figure is the
 * queries' cost; a page of finished runs folds more events per run.
 *
 *   npm run bench -- httpListPage
 */
const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? process.env.ARIADNE_TEST_ADMIN_URL;
const RUNS = Number(process.env.ARIADNE_BENCH_RUNS ?? 10_000);
const PAGE = 200;
const AIM_MS = 100;

export async function main(): Promise<void> {
  console.log(`list page bench: ${RUNS} queued runs, a page of ${PAGE} (load average ${loadavg()[0].toFixed(2)})`);
  const scratch = await createScratchDatabase(`ariadne_bench_listpage_${process.pid}`, ADMIN_URL);
  const { store, close } = await openStore({ url: scratch.url, poolSize: 10 });
  try {
    const seeded = performance.now();
    await submitQueued(store, RUNS);
    console.log(`  seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    // Before: the rows, then one projection (a query and a fold) per run, as leasedRuns.list did.
    const before = async () => {
      const t = performance.now();
      const { runs } = await listRuns(store.database, { scope: "bench", limit: PAGE });
      const views = [];
      for (const row of runs) views.push(runViewOf(row, await projectRun(store, row.runId, { ownerLive: row.ownerLive })));
      if (views.length !== PAGE) throw new Error(`the page held ${views.length} runs`);
      return performance.now() - t;
    };
    // Now, in process: the rows, every run's events in one query, folded in memory (leasedRuns.list without HTTP).
    const now = async () => {
      const t = performance.now();
      const { runs } = await listRuns(store.database, { scope: "bench", limit: PAGE });
      const events = await store.readRuns(runs.map((r) => r.runId));
      const views = runs.map((row) => runViewOf(row, runView(foldRun(events.get(row.runId)!), { ownerLive: row.ownerLive })));
      if (views.length !== PAGE) throw new Error(`the page held ${views.length} runs`);
      return performance.now() - t;
    };
    const beforeCold = await before();
    const beforeWarm = median(await repeat(20, before));
    const nowCold = await now();
    const nowWarm = median(await repeat(20, now));

    // Now: through the API, a fresh server each time for the cold figure.
    const key = (await createApiKey(store.database, { role: "client", tenant: "bench" })).token;
    const page = async (base: string) => {
      const t = performance.now();
      const res = await fetch(`${base}/v1/runs?limit=${PAGE}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { data: unknown[] };
      if (res.status !== 200 || body.data.length !== PAGE) throw new Error(`the page answered ${res.status} with ${body.data?.length} runs`);
      return performance.now() - t;
    };
    const api = await openApiServer({ store, port: 0, host: "127.0.0.1", log: () => {}, workers: false, rateLimit: { perSecond: 1e9, burst: 1e9 } });
    let afterCold: number;
    let afterWarm: number;
    try {
      const base = `http://127.0.0.1:${api.server.port}`;
      afterCold = await page(base);
      afterWarm = median(await repeat(20, () => page(base)));
    } finally {
      await api.close({ graceMs: 1_000 });
    }

    console.log("");
    console.log(`  page of ${PAGE} on ${RUNS} runs      cold ms   median of 20 ms   aim`);
    console.log(`  before (a projection per run)  ${beforeCold.toFixed(1).padStart(8)}   ${beforeWarm.toFixed(1).padStart(15)}   < ${AIM_MS} ms`);
    console.log(`  now, in process (one read)     ${nowCold.toFixed(1).padStart(8)}   ${nowWarm.toFixed(1).padStart(15)}   < ${AIM_MS} ms`);
    console.log(`  now (GET /v1/runs over HTTP)   ${afterCold.toFixed(1).padStart(8)}   ${afterWarm.toFixed(1).padStart(15)}   < ${AIM_MS} ms ${afterCold < AIM_MS ? "(met)" : "(NOT met)"}`);
  } finally {
    await close();
    await scratch.drop();
  }
}

async function repeat(n: number, f: () => Promise<number>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push(await f());
  return ms;
}

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
