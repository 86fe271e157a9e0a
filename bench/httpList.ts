import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { createScratchDatabase } from "../db/scratchDatabase.ts";
import type { EventStore } from "../events/index.ts";
import { openStore } from "../events/openStore.ts";
import { submitRun } from "../runs/submitRun.ts";
import { createApiKey } from "../db/apiKeys.ts";
import { openApiServer } from "../http/openApiServer.ts";

/**
 * `GET /v1/runs?state=` against how many runs of other states exist (issue 18):
 * 5 cancelled runs, the oldest, under 1,000 and then 10,000 newer queued ones,
 * on PostgreSQL through the API (no workers, so nothing moves). The filtered
 * page must cost the same whatever the queue holds, and about what an
 * unfiltered page costs (both are one index range in SQL). Prints the median
 * and p95 of each, and the ratios: filtered ÷ unfiltered in the same database,
 * and the 10,000-run database ÷ the 1,000-run one.
 *
 *   node --import tsx bench/httpList.ts
 */
const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? process.env.ARIADNE_TEST_ADMIN_URL;
const REQUESTS = Number(process.env.ARIADNE_BENCH_REQUESTS ?? 200);
const SIZES = [1_000, 10_000];
const CANCELLED = 5;

interface Timing {
  median: number;
  p95: number;
}

export async function main(): Promise<void> {
  console.log(`list bench: ${CANCELLED} cancelled runs under ${SIZES.join(" / ")} newer queued ones, ${REQUESTS} requests each (load average ${loadavg()[0].toFixed(2)})`);
  const rows: { queued: number; filtered: Timing; unfiltered: Timing; found: number }[] = [];
  for (const queued of SIZES) rows.push({ queued, ...(await measure(queued)) });
  console.log("");
  console.log("  queued runs  state=cancelled&limit=50 median / p95 ms  unfiltered limit=50 median / p95 ms  found  filtered ÷ unfiltered");
  for (const r of rows) {
    console.log(
      `  ${String(r.queued).padStart(11)}  ${fmt(r.filtered).padStart(38)}  ${fmt(r.unfiltered).padStart(34)}  ${String(r.found).padStart(5)}  ${(r.filtered.median / r.unfiltered.median).toFixed(2)}x`,
    );
  }
  const [small, large] = rows;
  console.log(`\n  state=cancelled with ${large!.queued} queued ÷ with ${small!.queued} queued: ${(large!.filtered.median / small!.filtered.median).toFixed(2)}x (median)`);
}

async function measure(queued: number): Promise<{ filtered: Timing; unfiltered: Timing; found: number }> {
  const scratch = await createScratchDatabase(`ariadne_bench_list_${process.pid}_${queued}`, ADMIN_URL);
  const { store, close } = await openStore({ url: scratch.url, poolSize: 10 });
  const api = await openApiServer({ store, port: 0, host: "127.0.0.1", log: () => {}, workers: false, rateLimit: { perSecond: 1e9, burst: 1e9 } });
  try {
    const base = `http://127.0.0.1:${api.server.port}`;
    const key = (await createApiKey(store.database, { role: "client", tenant: "bench" })).token;
    const auth = { authorization: `Bearer ${key}` };
    const json = { ...auth, "content-type": "application/json" };
    const submit = async () => {
      const res = await fetch(`${base}/v1/runs`, { method: "POST", headers: json, body: JSON.stringify({ offline: true }) });
      if (res.status !== 201) throw new Error(`submitting a run answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    // The oldest runs: submitted and cancelled through the API, so their log says cancelled.
    for (let i = 0; i < CANCELLED; i++) {
      const id = await submit();
      const res = await fetch(`${base}/v1/runs/${id}/cancel`, { method: "POST", headers: json, body: JSON.stringify({ reason: "bench" }) });
      if (res.status >= 300) throw new Error(`cancelling ${id} answered ${res.status}: ${await res.text()}`);
    }
    await submitQueued(store, queued);
    const filtered = await time(`${base}/v1/runs?state=cancelled&limit=50`, auth);
    const unfiltered = await time(`${base}/v1/runs?limit=50`, auth);
    const found = ((await (await fetch(`${base}/v1/runs?state=cancelled&limit=50`, { headers: auth })).json()) as { data: unknown[] }).data.length;
    if (found !== CANCELLED) throw new Error(`state=cancelled found ${found} runs, expected ${CANCELLED}`);
    return { filtered, unfiltered, found };
  } finally {
    await api.close({ graceMs: 1_000 });
    await close();
    await scratch.drop();
  }
}

/** `count` queued runs, newer than the cancelled ones, recorded as the API records them (fact and row), 16 at a time. */
export async function submitQueued(store: EventStore, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await submitRun(store, { question: "a queued run", tenant: "bench" });
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

async function time(url: string, headers: Record<string, string>): Promise<Timing> {
  for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).text(); // warm up
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]! };
}

const fmt = (t: Timing) => `${t.median.toFixed(2)} / ${t.p95.toFixed(2)}`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
