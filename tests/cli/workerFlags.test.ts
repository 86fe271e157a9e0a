import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWorker } from "../../runs/index.ts";
import { ariadne, STACK_LINE } from "./ariadneProcess.ts";

// Checked before any store is opened; a worker that is not refused exits once idle, in a store of its own.
const dir = await mkdtemp(join(tmpdir(), "ariadne-worker-flags-"));
after(() => rm(dir, { recursive: true, force: true }));

for (const [args, env, says] of [
  [["--lease-ms", "0"], {}, /^ariadne: --lease-ms must be at least 1000 ms \(got 0\)/],
  [["--lease-ms", "999"], {}, /^ariadne: --lease-ms must be at least 1000 ms \(got 999\)/],
  [[], { ARIADNE_LEASE_MS: "500" }, /^ariadne: ARIADNE_LEASE_MS must be at least 1000 ms \(got 500\)/],
  [["--concurrency", "0"], {}, /^ariadne: --concurrency must be at least 1 \(got 0\)/],
] as const) {
  test(`ariadne worker ${args.join(" ") || JSON.stringify(env)} is bad usage: exit 2, one line`, async () => {
    const r = await ariadne(["worker", ...args, "--idle-exit-ms", "200", "--data-dir", join(dir, args.join("") || "env")], { ...env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, says);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, STACK_LINE);
  });
}

test("runWorker itself refuses a lease under the floor and no concurrency, before it takes anything", async () => {
  const unused = new Proxy({}, { get: () => assert.fail("the worker must not touch the database") }) as never;
  await assert.rejects(runWorker({ database: unused, store: unused, buildRuntime: unused, ttlMs: 0 }), /lease .* at least 1000 ms/);
  await assert.rejects(runWorker({ database: unused, store: unused, buildRuntime: unused, concurrency: 0 }), /concurrency must be at least 1/);
});
