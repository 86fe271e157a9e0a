import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { runStatus, verifyRun } from "../../runs/index.ts";
import { type OwnCluster, ownClusterUnavailable, startOwnCluster } from "../support/ownCluster.ts";
import { ariadne, start } from "../runs/processes.ts";

/**
 * PostgreSQL restarted during a run: the worker rides it out (reads and appends
 * retried with backoff, an append never twice) and the run completes; no event
 * is doubled; the run verifies.
 *
 * It restarts a cluster of its own (tests/support/ownCluster.ts: initdb into a
 * temporary directory, a free port), never the shared server; it is skipped,
 * saying why, where the server binaries are missing. tests/runs/pgRestart.e2e
 * restarts one under three hosted runs, fast and immediate.
 */
const skip = ownClusterUnavailable();

describe("PostgreSQL restarted during a run (a cluster of the test's own)", { skip: skip ?? false }, () => {
  let cluster: OwnCluster;
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  before(async () => {
    cluster = await startOwnCluster();
    scratch = await createScratchDatabase(`ariadne_pgrestart_${process.pid}`, cluster.adminUrl);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "150" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(async () => {
    await scratch?.drop().catch(() => {});
    await cluster?.destroy();
  });

  test("a worker mid-run while the server restarts reconnects and completes the run; no event twice; the run verifies", async () => {
    const submitted = await ariadne(["submit"], env);
    assert.equal(submitted.code, 0, submitted.output);
    const runId = submitted.output.trim().split("\n").at(-1)!;
    const worker = start(["worker", "--lease-ms", "15000", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    await worker.waitFor(/child:\S+\s+admitted/);
    const before = await cluster.startedAt();
    await cluster.restart("fast");
    assert.notEqual(await cluster.startedAt(), before, "the server did not restart");
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
      // No public key here: the structure is intact, its authenticity not checked (exit 4).
      assert.equal(verified.code, 4, verified.output);
    } finally {
      await close();
    }
  });
});
