import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { runStatus, verifyRun } from "../../runs/index.ts";
import { ADMIN_URL, adminQuery } from "../support/testDatabase.ts";
import { ariadne, start } from "./processes.ts";

/**
 * Database faults without restarting the shared server: every backend of this
 * test's database is terminated (what a restart does to a client) several
 * times while a worker runs. The worker reconnects with backoff and the run
 * completes; no append is lost or doubled.
 */
describe("database connections lost mid-run (PostgreSQL, real processes)", () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  let name: string;
  before(async () => {
    name = `ariadne_connloss_${process.pid}`;
    scratch = await createScratchDatabase(name, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "150" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(() => scratch?.drop());

  test("a worker whose connections are all terminated three times reconnects and completes the run; every append once", async () => {
    const submitted = await ariadne(["submit"], env);
    const runId = submitted.output.trim().split("\n").at(-1)!;
    const worker = start(["worker", "--lease-ms", "5000", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    await worker.waitFor(/child:\S+\s+admitted/);
    for (let i = 0; i < 3; i++) {
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
      await new Promise((r) => setTimeout(r, 400));
    }
    assert.equal(await worker.exited, 0, worker.output());

    const { store, database, close } = await openStore({ url: scratch.url });
    try {
      await verifyRun(store, runId);
      const s = await runStatus(database, store, runId);
      assert.equal(s.state, "settled", worker.output());
      const dup = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (
          SELECT executor_id, type, data FROM ariadne_events WHERE run_id = ${runId} AND type IN ('turn', 'handoff_committed', 'handoff_consumed', 'settled')
          GROUP BY executor_id, type, data HAVING count(*) > 1) d`.execute(database.db);
      assert.equal(dup.rows[0].n, 0, "no event recorded twice");
    } finally {
      await close();
    }
  });

  test("the database refuses every connection for two seconds mid-run (as during a restart): the worker backs off, reconnects and completes the run", async () => {
    const submitted = await ariadne(["submit"], env);
    const runId = submitted.output.trim().split("\n").at(-1)!;
    const worker = start(["worker", "--lease-ms", "8000", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    await worker.waitFor(/child:\S+\s+admitted/);
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    assert.equal(await worker.exited, 0, worker.output());
    const { store, database, close } = await openStore({ url: scratch.url });
    try {
      await verifyRun(store, runId);
      assert.equal((await runStatus(database, store, runId)).state, "settled", worker.output());
    } finally {
      await close();
    }
  });
});
