import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { type Database, openDatabase } from "../../db/index.ts";
import { type EventStore, createEventStore } from "../../events/index.ts";
import { findRun, forceLease, hostRun, submitRun, takeLease } from "../../runs/index.ts";
import { eventually } from "../actors/fixtures.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";
import { slowOrderRun } from "./slowOrderRun.ts";

/** Every connection the hosts open says so, so they can be counted apart from the test's own. */
const APP = "ariadne_takeover_hosts";

// pg_stat_activity is PostgreSQL's; PGlite has no connections to leak.
describe("connections across takeovers", { skip: !ENGINES.includes("postgres") }, () => {
  let ctx: TestDatabase;
  before(async () => (ctx = await openTestDatabase("postgres")));
  after(() => ctx?.dispose());

  /** Connections of this test database opened by the hosts; with `listening`, only those that ran LISTEN. */
  async function hostConnections(listening = false): Promise<number> {
    const r = await sql<{ n: string }>`
      SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${APP} AND (NOT ${listening} OR query ILIKE 'LISTEN%')`.execute(ctx.database.db);
    return Number(r.rows[0].n);
  }

  test("a host that loses its run to another releases every connection it held: after three takeovers the count is back to the baseline", async () => {
    const baseline = await hostConnections();
    const url = new URL(ctx.url!);
    url.searchParams.set("application_name", APP);
    const hosting: Database = await openDatabase({ url: url.toString(), poolSize: 4 });
    const store: EventStore = createEventStore(hosting);
    try {
      for (let round = 1; round <= 3; round++) {
        // Given: a run hosted by "old", its tool in flight
        const s = slowOrderRun();
        const { runId } = await submitRun(store, { question: "Place the order." });
        const lease = await takeLease(hosting, { owner: `old-${round}`, ttlMs: 1_000, runId });
        const old = hostRun({ database: hosting, store, buildRuntime: s.build, ttlMs: 1_000 }, lease!);
        await s.counter.started.opened;
        // When: another owner takes it (its heartbeat finds the lease gone) and finishes it
        const taken = await forceLease(hosting, { runId, owner: `new-${round}`, ttlMs: 60_000 });
        assert.equal((await old.done).kind, "fenced");
        s.open(); // the old host's tool returns; its runner can write nothing more
        const next = await hostRun({ database: hosting, store, buildRuntime: s.build, ttlMs: 60_000 }, taken!.lease).done;
        assert.equal(next.kind, "finished", JSON.stringify(next));
        assert.equal((await findRun(hosting, runId)).state, "finished");
        // Then: no host listens any more, neither the lost one nor the finished one
        await eventually(async () => (await hostConnections(true)) === 0, 3_000).catch(async () => {
          assert.fail(`round ${round}: ${await hostConnections(true)} LISTEN connection(s) still open after both hosts ended`);
        });
      }
    } finally {
      await hosting.close();
    }
    // The pool is closed: what is left open was held by a lost run.
    await eventually(async () => (await hostConnections()) === baseline, 3_000).catch(async () => {
      assert.fail(`${(await hostConnections()) - baseline} connection(s) above the baseline of ${baseline} after the hosts' pool closed`);
    });
  });
});
