import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { findRun, runStatus, verifyRun } from "../../runs/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { ariadne, start } from "./processes.ts";

/** Several workers on one PostgreSQL database, in real processes. */
describe("workers (PostgreSQL, real processes)", () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  before(async () => {
    scratch = await createScratchDatabase(`ariadne_workers_${process.pid}`, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "200" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(() => scratch?.drop());

  const withStore = async <T>(f: (s: Awaited<ReturnType<typeof openStore>>) => Promise<T>) => {
    const opened = await openStore({ url: scratch.url });
    try {
      return await f(opened);
    } finally {
      await opened.close();
    }
  };
  const submit = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await ariadne(["submit", "--json"], env)).output.trim().split("\n").map((l) => l.startsWith("{") ? JSON.parse(l).runId : null).find(Boolean));
    return ids;
  };
  /** Every run settled, every chain verifies, and Main answered exactly once. */
  const assertFinished = (ids: string[]) =>
    withStore(async ({ store, database }) => {
      for (const id of ids) {
        await verifyRun(store, id);
        const s = await runStatus(database, store, id);
        assert.equal(s.state, "settled", `run ${id}: ${JSON.stringify(s)}`);
        assert.equal((await findRun(database, id)).state, "finished");
        const settled = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM ariadne_events WHERE run_id = ${id} AND type = 'settled' AND executor_id = ${s.executors!.executorId}`.execute(database.db);
        assert.equal(settled.rows[0].n, 1);
      }
    });

  test("two workers, one killed mid-run: the survivor takes its runs over once their leases run out and completes every run", async () => {
    const ids = await submit(3);
    const doomed = start(["worker", "--lease-ms", "1500", "--concurrency", "3"], env);
    await doomed.waitFor(/took run/);
    await doomed.waitFor(/child:\S+\s+admitted/);
    const survivor = start(["worker", "--lease-ms", "1500", "--concurrency", "3", "--poll-ms", "200", "--idle-exit-ms", "4000"], env);
    doomed.child.kill("SIGKILL");
    assert.equal(await survivor.exited, 0, survivor.output());
    assert.match(survivor.output(), /taking over/);
    await assertFinished(ids);
  });

  test("SIGTERM on a worker releases its runs: another worker takes them at once, long before the lease would run out", async () => {
    const [id] = await submit(1);
    const first = start(["worker", "--lease-ms", "600000"], env);
    await first.waitFor(new RegExp(`took run ${id}`));
    await first.waitFor(/child:\S+\s+admitted/);
    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0, first.output());
    const row = await withStore(({ database }) => findRun(database, id));
    assert.equal(row.state, "running");
    assert.equal(row.leaseOwner, null);
    // A ten-minute lease and a worker that gives up after four idle seconds: only the release lets it in.
    const second = start(["worker", "--lease-ms", "600000", "--idle-exit-ms", "4000"], env);
    assert.equal(await second.exited, 0, second.output());
    assert.match(second.output(), new RegExp(`run ${id} finished: answer`));
    await assertFinished([id]);
  });

  test("fencing: a worker paused (SIGSTOP) past its lease cannot append after SIGCONT; another worker finished its run", async () => {
    const [id] = await submit(1);
    const paused = start(["worker", "--lease-ms", "1500"], env);
    await paused.waitFor(new RegExp(`took run ${id}`));
    await paused.waitFor(/child:\S+\s+admitted/);
    paused.child.kill("SIGSTOP");
    const other = start(["worker", "--lease-ms", "1500", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    assert.equal(await other.exited, 0, other.output());
    assert.match(other.output(), new RegExp(`run ${id} finished: answer`));
    const count = () => withStore(({ database }) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ariadne_events WHERE run_id = ${id}`.execute(database.db)).then((r) => r.rows[0].n);
    const before = await count();

    paused.child.kill("SIGCONT");
    // Its model calls and heartbeat wake up: whichever comes first learns it lost the run.
    await paused.waitFor(new RegExp(`run ${id} fenced`));
    paused.child.kill("SIGTERM");
    await paused.exited;
    assert.equal(await count(), before, "the paused worker wrote nothing after it woke up");
    await assertFinished([id]);
  });

  test("a run the worker cannot host (no model configured) is interrupted with the reason, not retaken in a loop", async () => {
    const submitted = await ariadne(["submit", "--json", "What does ADIV cost?"], { ...env, ANTHROPIC_API_KEY: "sk-test-not-used" });
    const id = JSON.parse(submitted.output.trim().split("\n").at(-1)!).runId as string;
    const worker = start(["worker", "--idle-exit-ms", "1500", "--poll-ms", "100"], { ...env, ANTHROPIC_API_KEY: "" });
    assert.equal(await worker.exited, 0, worker.output());
    assert.equal(worker.output().match(new RegExp(`took run ${id}`, "g"))?.length, 1, worker.output());
    await withStore(async ({ store, database }) => {
      assert.equal((await runStatus(database, store, id)).state, "interrupted");
      const [fact] = (await store.readRun(id)).filter((e) => e.type === "run_interrupted");
      assert.match(fact.type === "run_interrupted" ? fact.data.reason : "", /ANTHROPIC_API_KEY/);
    });
  });
});
