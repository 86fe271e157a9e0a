import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { createScratchDatabase } from "../db/scratchDatabase.ts";
import { openStore } from "../events/openStore.ts";
import { createApiKey } from "../db/apiKeys.ts";
import { openApiServer } from "../http/openApiServer.ts";
import { autocannon, startBareServer, type LoadResult } from "./httpTargets.ts";

/**
 * The HTTP API on PostgreSQL over loopback, beside a bare Hono route that
 * returns the same bytes from memory, in the same process and run:
 *  - GET /v1/runs/{id} of a settled run (auth, rate limit, tenant check, request log, view);
 *  - an SSE fan-out: 100 clients at once replaying one run's event stream to its `end`;
 *  - live delivery: 100 clients following one run while it executes (append-to-client latency).
 * API and baseline take turns in slices, so load from elsewhere hits both alike.
 *
 *   node --import tsx bench/http.ts
 *   ARIADNE_BENCH_SLICE_S=3 ARIADNE_BENCH_ROUNDS=3 node --import tsx bench/http.ts
 */
const SLICE_S = Number(process.env.ARIADNE_BENCH_SLICE_S ?? 3);
const ROUNDS = Number(process.env.ARIADNE_BENCH_ROUNDS ?? 3);
const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? process.env.ARIADNE_TEST_ADMIN_URL;
const FAN_OUT = 100;

export async function main(): Promise<void> {
  const load = loadavg()[0];
  const scratch = await createScratchDatabase(`ariadne_bench_http_${process.pid}`, ADMIN_URL);
  const { store, close } = await openStore({ url: scratch.url, poolSize: 10 });
  const api = await openApiServer({ store, port: 0, host: "127.0.0.1", log: () => {}, rateLimit: { perSecond: 1e9, burst: 1e9 } });
  try {
    const base = `http://127.0.0.1:${api.server.port}`;
    const key = (await createApiKey(store.database, { role: "client", tenant: "bench" })).token;
    const auth = { authorization: `Bearer ${key}` };
    const runId = await settledRun(base, auth);
    const runJson = await (await fetch(`${base}/v1/runs/${runId}`, { headers: auth })).json();
    const frames = await sseFramesOf(base, auth, runId);
    const bare = await startBareServer(runJson, frames);
    try {
      const read = await alternate(
        () => autocannon({ url: `${base}/v1/runs/${runId}`, connections: 10, duration: SLICE_S, headers: auth }),
        () => autocannon({ url: `${bare.url}/run`, connections: 10, duration: SLICE_S }),
      );
      report(`GET /v1/runs/{id} (10 connections)`, read, "requests/s", 0.5);
      const sse = await alternate(
        () => autocannon({ url: `${base}/v1/runs/${runId}/events`, connections: FAN_OUT, duration: SLICE_S, headers: { ...auth, accept: "text/event-stream" } }),
        () => autocannon({ url: `${bare.url}/events`, connections: FAN_OUT, duration: SLICE_S, headers: { accept: "text/event-stream" } }),
      );
      report(`SSE fan-out, ${FAN_OUT} clients replaying one run (${frames.length} events each)`, sse, "streams/s");
      const live = await followLive(base, auth);
      console.log(
        `· live: ${FAN_OUT} clients following one running run: ${live.delivered} events delivered (${live.perClient} each, all clients got all), ` +
          `append-to-client latency p50 ${live.p50.toFixed(1)} ms, p99 ${live.p99.toFixed(1)} ms`,
      );
    } finally {
      await bare.close();
    }
  } finally {
    await api.close({ graceMs: 1_000 });
    await close();
    await scratch.drop();
  }
  console.log(`(PostgreSQL on loopback; ${ROUNDS} rounds of ${SLICE_S} s per side; load average at start ${load.toFixed(2)}; 2 cores shared)`);
}

async function settledRun(base: string, auth: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}/v1/runs`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "bench" }) });
  const { id } = (await res.json()) as { id: string };
  for (let i = 0; i < 600; i++) {
    const run = (await (await fetch(`${base}/v1/runs/${id}`, { headers: auth })).json()) as { state: string };
    if (run.state !== "running" && run.state !== "queued") return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`bench run ${id} did not settle`);
}

async function sseFramesOf(base: string, auth: Record<string, string>, runId: string) {
  const text = await (await fetch(`${base}/v1/runs/${runId}/events`, { headers: { ...auth, accept: "text/event-stream" } })).text();
  return text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      const f: Record<string, string> = {};
      for (const line of block.split("\n")) f[line.slice(0, line.indexOf(":"))] = line.slice(line.indexOf(":") + 2);
      return { id: f.id ?? "", event: f.event ?? "", data: f.data ?? "" };
    });
}

interface Pair {
  api: LoadResult[];
  bare: LoadResult[];
}

async function alternate(api: () => Promise<LoadResult>, bare: () => Promise<LoadResult>): Promise<Pair> {
  const pair: Pair = { api: [], bare: [] };
  // Warm-up (JIT, connection pools, caches), not counted.
  await api();
  await bare();
  for (let r = 0; r < ROUNDS; r++) {
    pair.api.push(await api());
    pair.bare.push(await bare());
  }
  return pair;
}

function summarise(results: LoadResult[]) {
  const total = results.reduce((s, r) => s + r.requests.total, 0);
  const seconds = results.reduce((s, r) => s + r.duration, 0);
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    rate: total / seconds,
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
    bad: results.reduce((s, r) => s + r.errors + r.non2xx, 0),
  };
}

function report(name: string, pair: Pair, unit: string, aim?: number): void {
  const a = summarise(pair.api);
  const b = summarise(pair.bare);
  const ratio = a.rate / b.rate;
  console.log(
    `· ${name}: API ${a.rate.toFixed(0)} ${unit} (p50 ${a.p50} ms, p99 ${a.p99} ms) vs bare Hono ${b.rate.toFixed(0)} ${unit} ` +
      `(p50 ${b.p50} ms, p99 ${b.p99} ms): ratio ${ratio.toFixed(2)}x${aim ? ` (aim >= ${aim}x: ${ratio >= aim ? "met" : "NOT met"})` : ""}` +
      (a.bad || b.bad ? `; errors/non-2xx: API ${a.bad}, bare ${b.bad}` : ""),
  );
}

/** 100 SSE clients attached before a run starts; latency = client receipt minus the event's recordedAt. */
async function followLive(base: string, auth: Record<string, string>) {
  const res = await fetch(`${base}/v1/runs`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "live bench" }) });
  const { id } = (await res.json()) as { id: string };
  const latencies: number[] = [];
  const counts = await Promise.all(
    Array.from({ length: FAN_OUT }, async () => {
      const stream = await fetch(`${base}/v1/runs/${id}/events`, { headers: { ...auth, accept: "text/event-stream" } });
      const reader = stream.body!.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
      let buffer = "";
      let n = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return n;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split("\n").find((l) => l.startsWith("data: "));
          if (block.includes("event: end")) {
            await reader.cancel();
            return n;
          }
          if (data && /^id: /m.test(block)) {
            n++;
            latencies.push(Date.now() - Date.parse(JSON.parse(data.slice(6)).recordedAt));
          }
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  if (new Set(counts).size !== 1) throw new Error(`live clients received different counts: ${[...new Set(counts)].join(", ")}`);
  return { delivered: latencies.length, perClient: counts[0], p50: pct(50), p99: pct(99) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
