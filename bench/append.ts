import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import type { Engine } from "../db/index.ts";
import type { EventStore, NewEvent } from "../events/index.ts";
import { type AppendTarget, type RawQuery, openPgliteTarget, openPostgresTarget } from "./appendTargets.ts";

/**
 * Event-store append throughput beside raw INSERTs of equal rows (same columns,
 * same indexes, same payload sizes) into a copy of the events table, through the
 * engine's own client: single-event appends (one commit each) and batches of
 * 100, with 1 and 8 concurrent writers, each writer on its own stream.
 *
 *   node --import tsx bench/append.ts
 *   ARIADNE_BENCH_ENGINES=pglite ARIADNE_BENCH_ROUNDS=20 node --import tsx bench/append.ts
 */
/**
 * Store and raw take turns in short slices, many times over, so that load from
 * elsewhere on the machine (which comes and goes over seconds) hits both alike.
 */
const SLICE_MS = Number(process.env.ARIADNE_BENCH_SLICE_MS ?? 250);
const ROUNDS = Number(process.env.ARIADNE_BENCH_ROUNDS ?? 8);
const WARMUP_MS = 300;
const CASES = [
  { batch: 1, writers: 1, aim: 0.7 },
  { batch: 1, writers: 8, aim: 0.7 },
  { batch: 100, writers: 1, aim: 0.5 },
  { batch: 100, writers: 8, aim: 0.5 },
] as const;
/** About the size of a short model turn. */
const TEXT = "The log records every turn, tool call and handoff of a run. ".repeat(8);

interface Row {
  engine: Engine;
  batch: number;
  writers: number;
  store: number;
  raw: number;
  aim: number;
}

export async function main(): Promise<void> {
  const engines = (process.env.ARIADNE_BENCH_ENGINES?.split(",") ?? ["postgres", "pglite"]) as Engine[];
  const started = performance.now();
  const load = loadavg()[0];
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const engine of engines) {
    const target = engine === "postgres" ? await openPostgresTarget(10) : await openPgliteTarget();
    try {
      notes.push(target.describe);
      await createRawTable(await target.rawConnection());
      for (const c of CASES) {
        const [store, raw] = await measureCase(target, c.batch, c.writers);
        rows.push({ engine, ...c, store, raw });
        console.log(`· ${engine} ${c.batch === 1 ? "single" : `batch ${c.batch}`} x${c.writers}: ${fmt(store)} vs raw ${fmt(raw)} events/s`);
      }
    } finally {
      await target.close();
    }
  }
  printTable(rows);
  for (const n of notes) console.log(`  ${n}`);
  console.log(
    `  ${ROUNDS} alternating slices of ${SLICE_MS} ms each for store and raw per case; ` +
      `1-min load ${load.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end; total ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Events per second for the store and for raw inserts, in alternating slices. */
async function measureCase(target: AppendTarget, batch: number, writers: number): Promise<[number, number]> {
  const tag = `${target.engine}-${batch}-${writers}-${randomUUID().slice(0, 8)}`;
  const store = Array.from({ length: writers }, (_, w) => storeWriter(target.store, batch, `bench-${tag}-${w}`));
  const raw = await Promise.all(Array.from({ length: writers }, async (_, w) => rawWriter(await target.rawConnection(), batch, `raw-${tag}-${w}`)));
  await slice(store, WARMUP_MS);
  await slice(raw, WARMUP_MS);
  const totals = { store: { events: 0, seconds: 0 }, raw: { events: 0, seconds: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, writersOfKind] of [["raw", raw], ["store", store]] as const) {
      const r = await slice(writersOfKind, SLICE_MS);
      totals[kind].events += r.events;
      totals[kind].seconds += r.seconds;
    }
  }
  return [totals.store.events / totals.store.seconds, totals.raw.events / totals.raw.seconds];
}

/** One append per call; resolves to the number of events written. */
type Writer = () => Promise<number>;

async function slice(writers: Writer[], ms: number): Promise<{ events: number; seconds: number }> {
  const start = performance.now();
  let events = 0;
  await Promise.all(
    writers.map(async (write) => {
      while (performance.now() - start < ms) {
        const written = await write();
        events += written; // not `events += await write()`: that reads `events` before the await
      }
    }),
  );
  return { events, seconds: (performance.now() - start) / 1000 };
}

function turn(runId: string, executorId: string, n: number): NewEvent {
  return {
    type: "turn",
    data: {
      turn: n,
      request: { model: "scripted:bench", messageCount: n, toolNames: ["search", "read"], digest: "a".repeat(64) },
      response: { content: [{ type: "text", text: TEXT }], stopReason: "end_turn" },
      usage: { inputTokens: 1200, outputTokens: 140 },
      model: "scripted:bench",
      provider: "scripted",
      scripted: true,
      latencyMs: 0,
    },
    metadata: { runId, executorId },
  };
}

function storeWriter(store: EventStore, batch: number, stream: string): Writer {
  const run = `run-${stream}`;
  let version = 0;
  return async () => {
    const events = Array.from({ length: batch }, (_, i) => turn(run, stream, version + i + 1));
    version = (await store.append(stream, version, events)).nextExpectedVersion;
    return batch;
  };
}

const COLUMNS = ["event_id", "stream_id", "stream_version", "run_id", "executor_id", "type", "schema_version", "data", "metadata", "recorded_at", "prev_hash", "hash"];

/** The same columns, defaults and indexes as ariadne_events (LIKE copies no triggers; the log's only fire on UPDATE and DELETE). */
async function createRawTable(query: RawQuery): Promise<void> {
  await query(`CREATE TABLE bench_raw_events (LIKE ariadne_events INCLUDING DEFAULTS INCLUDING INDEXES)`, []);
}

/** Plain INSERTs of the rows the store would write: one statement per event, or one multi-row statement per batch. */
function rawWriter(query: RawQuery, batch: number, stream: string): Writer {
  const run = `run-${stream}`;
  const event = turn(run, stream, 1);
  const data = JSON.stringify(event.data);
  // As the store writes them (migration 0018): the ids in their columns only, hashes as 32 bytes.
  const metadata = JSON.stringify({ causationId: null, correlationId: run });
  const hash = new Uint8Array(32).fill(0xff);
  const values = Array.from({ length: batch }, (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(", ")})`);
  const text = `INSERT INTO bench_raw_events (${COLUMNS.join(", ")}) VALUES ${values.join(", ")}`;
  let version = 0;
  return async () => {
    const recordedAt = new Date().toISOString();
    const params: unknown[] = [];
    for (let i = 1; i <= batch; i++) params.push(randomUUID(), stream, version + i, run, stream, "turn", 1, data, metadata, recordedAt, hash, hash);
    await query(text, params);
    version += batch;
    return batch;
  };
}

function printTable(rows: Row[]): void {
  const header = ["engine", "appends", "writers", "store ev/s", "raw ev/s", "ratio", "aim", ""];
  const body = rows.map((r) => {
    const ratio = r.store / r.raw;
    return [r.engine, r.batch === 1 ? "single" : `batch ${r.batch}`, String(r.writers), fmt(r.store), fmt(r.raw), ratio.toFixed(2), `>= ${r.aim}`, ratio >= r.aim ? "ok" : "MISS"];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  console.log("");
  for (const line of [header, widths.map((w) => "-".repeat(w)), ...body]) {
    console.log(`  ${line.map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join("  ")}`);
  }
  console.log("");
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
