import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEffectCounter } from "../faults/effectCounter.ts";
import { describe as describeRound, infraSoak } from "../faults/infraSoak.ts";

/**
 * The soak's infrastructure faults, small (`npm run soak` runs more, with
 * seeded downtimes of 3-20 s and three runs a round): a fast and an immediate
 * restart of a cluster of the test's own, each 3 s down, and one full disk under
 * PGlite and one under PostgreSQL, two hosted runs each (two runs at work at
 * once show what three do; on PGlite each resume after the full disk is a
 * process of its own, one after another: the round took 68 s with three, 28 s
 * with two). No executor fails, no run is lost, nothing
 * happens twice, every run verifies. A phase this machine cannot run (no server
 * binaries, no tmpfs) is skipped, saying why.
 */
let counter: Awaited<ReturnType<typeof startEffectCounter>>;
before(async () => {
  counter = await startEffectCounter();
});
after(() => counter?.close());

test("restarts and full disks under hosted runs fail, lose and double nothing", { timeout: 900_000 }, async (t) => {
  const { results, errors, skipped } = await infraSoak(counter, { restarts: 2, diskFulls: 1, runsPerRound: 2, downMs: 3_000, log: (line) => t.diagnostic(line) });
  for (const s of skipped) t.diagnostic(`skipped: ${s}`);
  assert.deepEqual(errors, []);
  if (!results.length) return t.skip(skipped.join("; "));
  for (const r of results) {
    assert.deepEqual(r.violations, [], describeRound(r));
    assert.equal(r.failedExecutors + r.lost + r.doubled, 0, describeRound(r));
  }
  // Each full disk struck while runs were hosted: at least one of its runs was interrupted, then resumed.
  for (const r of results.filter((x) => x.fault === "disk full")) assert.ok(r.interrupted > 0, `the disk filled after the runs were done: nothing was tested (${describeRound(r)})`);
});
