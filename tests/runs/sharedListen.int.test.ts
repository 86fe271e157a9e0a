import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { type Database, openDatabase } from "../../db/index.ts";
import { type EventStore, createEventStore } from "../../events/index.ts";
import { type BuildRuntime, type HostResult, runWorker, submitRun } from "../../runs/index.ts";
import { eventually, runtimeWith, stalledModel, within, requestCancel } from "../actors/fixtures.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

/** Every connection the worker's Database opens says so, to be counted apart from the test's own. */
const APP = "ariadne_shared_listen";

/**
 * A store that counts the reads each run's fenced store makes (streamVersion,
 * readStream): a hosted run reads through `withFence({ runId })`.
 */
function countingStore(inner: EventStore, reads: Map<string, number>, runId?: string): EventStore {
  const count = () => runId && reads.set(runId, (reads.get(runId) ?? 0) + 1);
  return {
    ...inner,
    streamVersion: (s, r) => (count(), inner.streamVersion(s, r)),
    readStream: (s, o) => (count(), inner.readStream(s, o)),
    withFence: (fence) => countingStore(inner.withFence(fence), reads, fence.runId),
  };
}

// pg_stat_activity and LISTEN are PostgreSQL's; PGlite's in-process notices are covered by the actors' tests.
describe("one LISTEN connection per worker, however many runs it hosts", { skip: !ENGINES.includes("postgres") }, () => {
  let ctx: TestDatabase;
  let hosting: Database;
  let store: EventStore;
  /** The operator's side: another process's store on the same database. */
  let operator: EventStore;
  const reads = new Map<string, number>();
  let calls = 0;
  /** Each run's Main waits on a model call that never returns: only a cancel from outside ends it. */
  const build: BuildRuntime = (s) => {
    const model = stalledModel(() => calls++);
    return runtimeWith(s, { main: model, child: model });
  };
  let worker: Promise<{ results: HostResult[] }>;
  const abort = new AbortController();

  before(async () => {
    ctx = await openTestDatabase("postgres");
    operator = createEventStore(ctx.database);
    const url = new URL(ctx.url!);
    url.searchParams.set("application_name", APP);
    hosting = await openDatabase({ url: url.toString(), poolSize: 4 });
    store = countingStore(createEventStore(hosting), reads);
    worker = runWorker({ database: hosting, store, buildRuntime: build, ttlMs: 60_000, pollMs: 20, concurrency: 20, signal: abort.signal });
  });
  after(async () => {
    abort.abort();
    await worker?.catch(() => {});
    await hosting?.close();
    await ctx?.dispose();
  });

  async function listenConnections(): Promise<{ pid: number }[]> {
    const r = await sql<{ pid: number }>`
      SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${APP} AND backend_type = 'client backend' AND query ILIKE 'LISTEN%'`.execute(ctx.database.db);
    return r.rows;
  }

  async function hostWaiting(n: number): Promise<string[]> {
    const runIds: string[] = [];
    const target = calls + n;
    for (let i = 0; i < n; i++) runIds.push((await submitRun(operator, { question: `Question ${i}?` })).runId);
    await eventually(() => calls >= target, 20_000);
    return runIds;
  }

  const cancel = (runId: string) =>
    requestCancel(runtimeWith(operator, { main: stalledModel(), child: stalledModel() }), { runId, reason: "stopped from the CLI", by: "operator" });

  async function runState(runId: string): Promise<string> {
    const r = await sql<{ state: string }>`SELECT state FROM ariadne_runs WHERE run_id = ${runId}`.execute(ctx.database.db);
    return r.rows[0]?.state ?? "none";
  }

  test("with 3 and then 8 runs hosted, all waiting on a model, the worker holds one LISTEN connection", async () => {
    await hostWaiting(3);
    assert.equal((await listenConnections()).length, 1, "3 runs hosted");
    await hostWaiting(5);
    assert.equal((await listenConnections()).length, 1, "8 runs hosted");
  });

  test("a cancel posted to one run wakes it alone: the other hosted runs make no read of the store", async () => {
    const [target, ...others] = await hostWaiting(3);
    const before = new Map(others.map((id) => [id, reads.get(id) ?? 0]));
    assert.equal((await cancel(target)).ok, true);
    await eventually(async () => (await runState(target)) === "finished", 20_000);
    // The run's own appends (cancelled, seal) were notified too: none of them concerns the others.
    await new Promise((r) => setTimeout(r, 200));
    for (const id of others) assert.equal(reads.get(id) ?? 0, before.get(id), `run ${id} read the store`);
  });

  test("after the shared connection is killed, every waiting run still hears its cancel and finishes", async () => {
    const runIds = await hostWaiting(3);
    const listening = await listenConnections();
    assert.equal(listening.length, 1);
    await sql`SELECT pg_terminate_backend(${listening[0].pid})`.execute(ctx.database.db);
    // Posted at once: some notices may go out while no one listens; the reconnection re-checks.
    for (const id of runIds) assert.equal((await cancel(id)).ok, true);
    await within(
      20_000,
      Promise.all(runIds.map((id) => eventually(async () => (await runState(id)) === "finished", 20_000))),
    );
    await eventually(async () => (await listenConnections()).length === 1, 5_000);
  });
});
