import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { findRun, runStatus, verifyRun } from "../../runs/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { ariadne, start } from "./processes.ts";

/**
 * The run lifecycle through the real command, in real processes, on PostgreSQL
 * (several processes share one database; PGlite is one process by design).
 */
describe("run lifecycle (PostgreSQL, real processes)", { concurrency: 2 }, () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  before(async () => {
    scratch = await createScratchDatabase(`ariadne_lifecycle_${process.pid}`, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "150", ARIADNE_LEASE_MS: "1500" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(() => scratch?.drop());

  const status = async (runId: string) => {
    const { store, database, close } = await openStore({ url: scratch.url });
    try {
      await verifyRun(store, runId);
      return { ...(await runStatus(database, store, runId)), row: await findRun(database, runId) };
    } finally {
      await close();
    }
  };

  test("Ctrl-C on ariadne run interrupts the run and says how to go on; ariadne resume finishes it", async () => {
    const run = start(["run"], env);
    const [, runId] = await run.waitFor(/^run (\S+)$/m);
    await run.waitFor(/child:\S+\s+admitted/);
    run.child.kill("SIGINT");
    assert.equal(await run.exited, 130, run.output());
    assert.match(run.output(), new RegExp(`ariadne resume ${runId}`));
    assert.match(run.output(), new RegExp(`ariadne cancel ${runId}`));
    const interrupted = await status(runId);
    assert.equal(interrupted.state, "interrupted");
    assert.equal(interrupted.row.leaseOwner, null);

    const { code, output } = await ariadne(["resume", runId], env);
    assert.equal(code, 0, output);
    assert.match(output, /\[observed\]/);
    const settled = await status(runId);
    assert.equal(settled.state, "settled");
    assert.equal(settled.row.state, "finished");
    assert.ok(settled.executors!.children.length >= 3 && settled.executors!.children.every((c) => c.state === "settled"));
  });

  test("kill -9 of ariadne run: ariadne resume sees its owner is gone, takes the run at once and finishes it", async () => {
    const run = start(["run"], { ...env, ARIADNE_LEASE_MS: "600000" });
    const [, runId] = await run.waitFor(/^run (\S+)$/m);
    await run.waitFor(/child:\S+\s+admitted/);
    run.child.kill("SIGKILL");
    await run.exited;
    // Its lease has not run out, so status still says running, with the lease's expiry, the heartbeat's age
    // and that the owner's process is gone.
    await new Promise((r) => setTimeout(r, 1_100));
    const text = await ariadne(["status", runId], env);
    assert.equal(text.code, 0, text.output);
    assert.match(text.output, /^lease: \S+ \(epoch 1\): expires in \d+ s; last heartbeat [1-9]\d* s ago; its process is gone \(this host\): ariadne resume \S+ takes the run over now$/m);
    const lease = JSON.parse((await ariadne(["status", runId, "--json"], env)).output).lease;
    assert.equal(lease.epoch, 1);
    assert.ok(lease.expiresInMs > 500_000, JSON.stringify(lease));
    assert.equal(typeof lease.expiresAt, "string");
    assert.ok(lease.heartbeatAgeMs >= 1_000, JSON.stringify(lease));
    assert.equal(lease.ownerGone, true);
    // A ten-minute lease: only recognising the dead owner lets resume in before the wait runs out.
    const { code, output } = await ariadne(["resume", runId, "--wait-ms", "0"], env);
    assert.equal(code, 0, output);
    const s = await status(runId);
    assert.equal(s.state, "settled");
    assert.equal(s.row.epoch, 2);
  });

  test("status --json has the state and the executor tree; status and cancel name an unknown run", async () => {
    const { code, output } = await ariadne(["submit"], env);
    assert.equal(code, 0, output);
    const runId = output.trim().split("\n").at(-1)!;
    const json = await ariadne(["status", runId, "--json"], env);
    assert.deepEqual(
      { ...JSON.parse(json.output), question: undefined },
      { runId, state: "submitted", question: undefined, lease: null, executors: null, events: 1 },
    );
    const cancelled = await ariadne(["cancel", runId], env);
    assert.equal(cancelled.code, 0, cancelled.output);
    assert.equal((await status(runId)).state, "cancelled");
    const unknown = await ariadne(["status", "no-such-run"], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.output, /^ariadne: no run no-such-run/m);
  });

  test("every lifecycle command has --help", async () => {
    for (const command of ["submit", "worker", "resume", "status", "cancel"]) {
      const { code, output } = await ariadne([command, "--help"], {});
      assert.equal(code, 0, output);
      assert.match(output, new RegExp(`^usage: ariadne ${command}`));
    }
  });
});
