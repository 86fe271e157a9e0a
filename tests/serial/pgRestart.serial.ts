import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { promisify } from "node:util";
import { sql } from "kysely";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { runStatus, verifyRun } from "../../runs/index.ts";
import pg from "pg";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { ariadne, start } from "../runs/processes.ts";

/**
 * PostgreSQL restarted during a run (`pg_ctlcluster … restart`): the worker
 * rides it out (reads and appends retried with backoff, an append never
 * twice) and the run completes; no event is doubled; the run verifies.
 *
 * It restarts the shared server, so it is not in the parallel suites
 * (tests/serial/, `npm run test:serial`). It needs the server on this machine,
 * managed by pg_ctlcluster; anything else fails with a message saying so.
 */
const exec = promisify(execFile);

function localCluster(): { version: string } {
  const host = new URL(ADMIN_URL).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
    throw new Error(`the PostgreSQL restart test needs a local server; ARIADNE_TEST_ADMIN_URL points at ${host}`);
  }
  if (!existsSync("/etc/postgresql")) throw new Error("the PostgreSQL restart test needs a cluster managed by pg_ctlcluster: /etc/postgresql is missing");
  const versions = readdirSync("/etc/postgresql").sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error("the PostgreSQL restart test found no cluster under /etc/postgresql");
  return { version: versions.at(-1)! };
}

describe("PostgreSQL restarted during a run (serial: restarts the shared server)", () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  let cluster: { version: string };
  before(async () => {
    cluster = localCluster();
    scratch = await createScratchDatabase(`ariadne_pgrestart_${process.pid}`, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "150" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(() => scratch?.drop());

  test("a worker mid-run while the server restarts reconnects and completes the run; no event twice; the run verifies", async () => {
    const submitted = await ariadne(["submit"], env);
    assert.equal(submitted.code, 0, submitted.output);
    const runId = submitted.output.trim().split("\n").at(-1)!;
    const worker = start(["worker", "--lease-ms", "15000", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    await worker.waitFor(/child:\S+\s+admitted/);
    const startedAt = async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        return String((await client.query("SELECT pg_postmaster_start_time()::text AS t")).rows[0].t);
      } finally {
        await client.end();
      }
    };
    const before = await startedAt();
    const restart = await exec("pg_ctlcluster", ["--skip-systemctl-redirect", cluster.version, "main", "restart"]).catch((e: Error & { stderr?: string }) => {
      throw new Error(`could not restart PostgreSQL ${cluster.version}/main: ${e.stderr || e.message}`);
    });
    assert.ok(restart);
    assert.notEqual(await startedAt(), before, "the server did not restart");
    assert.equal(worker.child.exitCode, null, "the run ended before the server restarted: nothing was tested");
    assert.equal(await worker.exited, 0, worker.output());

    const { store, database, close } = await openStore({ url: scratch.url });
    try {
      await verifyRun(store, runId);
      const s = await runStatus(database, store, runId);
      assert.equal(s.state, "settled", worker.output());
      const dup = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (
          SELECT executor_id, type, data FROM ariadne_events WHERE run_id = ${runId} AND type IN ('turn', 'tool_called', 'tool_completed', 'handoff_committed', 'handoff_consumed', 'settled')
          GROUP BY executor_id, type, data HAVING count(*) > 1) d`.execute(database.db);
      assert.equal(dup.rows[0].n, 0, "no event recorded twice");
      const verified = await ariadne(["verify", runId], env);
      assert.equal(verified.code, 0, verified.output);
    } finally {
      await close();
    }
  });
});
