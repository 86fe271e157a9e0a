import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { type OwnCluster, ownClusterUnavailable, startOwnCluster } from "../support/ownCluster.ts";
import { ariadne, start } from "../runs/processes.ts";

/**
 * Commands against a PostgreSQL that is down (issue 33, item 2), on a cluster
 * of the test's own: a worker, a server and a read started while it is down wait
 * (saying so) and carry on once it is back, none exits; `ariadne run` that loses
 * it for longer than ARIADNE_DATABASE_WAIT_MS gives up with one line saying what
 * happened and the exact `ariadne resume RUN`, which then finishes the run.
 */
const skip = ownClusterUnavailable();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("commands while PostgreSQL is down (a cluster of the test's own)", { skip: skip ?? false }, () => {
  let cluster: OwnCluster;
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  before(async () => {
    cluster = await startOwnCluster();
    scratch = await createScratchDatabase(`ariadne_outage_${process.pid}`, cluster.adminUrl);
    env = { DATABASE_URL: scratch.url, ARIADNE_LEASE_MS: "15000" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(async () => {
    await scratch?.drop().catch(() => {});
    await cluster?.destroy();
  });

  test("a worker, a server and status started while it is down wait and say so; once it is back they work", { timeout: 240_000 }, async () => {
    const submitted = await ariadne(["submit"], env);
    assert.equal(submitted.code, 0, submitted.output);
    const runId = submitted.output.trim().split("\n").at(-1)!;
    await cluster.stop("fast");
    const worker = start(["worker", "--poll-ms", "200", "--idle-exit-ms", "3000"], env);
    const server = start(["serve", "--port", "0", "--no-auth", "--no-workers"], env);
    const status = start(["status", runId], env);
    try {
      for (const p of [worker, server, status]) await p.waitFor(/waiting for PostgreSQL at \S+/);
      await pause(2_000);
      for (const p of [worker, server, status]) assert.equal(p.child.exitCode, null, `still waiting, not exited:\n${p.output()}`);
      await cluster.start();
      assert.equal(await status.exited, 0, status.output());
      assert.match(status.output(), new RegExp(`run ${runId}`));
      const [, url] = await server.waitFor(/"url":"([^"]+)"/);
      assert.equal((await fetch(`${url}/readyz`)).status, 200);
      assert.equal(await worker.exited, 0, worker.output());
      assert.match(worker.output(), new RegExp(`run ${runId} finished: answer`));
      for (const p of [worker, server, status]) assert.doesNotMatch(p.output(), /MaxListenersExceeded/);
    } finally {
      for (const p of [worker, server, status]) if (p.child.exitCode === null) p.child.kill("SIGKILL");
      await cluster.start().catch(() => {}); // already up unless an assertion failed while it was down
    }
  });

  test("ariadne run that loses the database past its wait says so in one line with the exact resume command; resume finishes it", { timeout: 240_000 }, async () => {
    const run = start(["run"], { ...env, ARIADNE_SCRIPTED_LATENCY_MS: "400", ARIADNE_DATABASE_WAIT_MS: "3000" });
    let runId: string;
    try {
      runId = (await run.waitFor(/^run (\S+)$/m))[1];
      await run.waitFor(/child:\S+\s+admitted/);
      await cluster.stop("fast");
      const code = await run.exited;
      await cluster.start();
      assert.equal(code, 1, run.output());
      // At most one line when the wait began, then one when it ended.
      const said = run.output().split("\n").filter((l) => l.startsWith("ariadne: "));
      assert.ok(said.length <= 2 && said.slice(0, -1).every((l) => /waiting for PostgreSQL/.test(l)), run.output());
      assert.match(said.at(-1)!, /the database .*unreachable/);
      assert.ok(said.at(-1)!.endsWith(`ariadne resume ${runId}`), said.at(-1));
      assert.doesNotMatch(run.output(), /^\s+at /m);
      assert.doesNotMatch(run.output(), /MaxListenersExceeded/);
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
      await cluster.start().catch(() => {});
    }
    const resumed = await ariadne(["resume", runId], env);
    assert.equal(resumed.code, 0, resumed.output);
  });
});
