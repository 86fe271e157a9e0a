import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { startEffectCounter } from "./effectCounter.ts";
import { CRASH_POINTS, runCase } from "./harness.ts";
import { shareNote, shareOf } from "../support/testShare.ts";

const SEEDS = [1, 2];

/**
 * The fault matrix on PostgreSQL: every crash point x two seeds (one restarted
 * by a second worker, one by resume), each a real process killed by SIGKILL.
 * Two lanes, each its own database, so a worker only ever sees its lane's run.
 */
describe(`fault matrix (PostgreSQL, SIGKILL at named crash points)${shareNote()}`, { concurrency: 2 }, () => {
  let counter: Awaited<ReturnType<typeof startEffectCounter>>;
  const lanes: ScratchDatabase[] = [];
  before(async () => {
    counter = await startEffectCounter();
    for (const seed of SEEDS) {
      const scratch = await createScratchDatabase(`ariadne_faults_${process.pid}_${seed}`, ADMIN_URL);
      const database = await openDatabase({ url: scratch.url });
      await migrateToLatest(database);
      await database.close();
      lanes.push(scratch);
    }
  });
  after(async () => {
    await counter?.close();
    await Promise.all(lanes.map((l) => l.drop()));
  });

  for (const [lane, seed] of SEEDS.entries()) {
    // Dealt by (seed, point) with the deal rotated per seed: with two Node lines, each line arms
    // every point once, half after a second worker and half after resume.
    const points = shareOf(CRASH_POINTS, lane);
    test(`seed ${seed}: ${points.length} of ${CRASH_POINTS.length} crash points, then ${seed % 2 === 0 ? "a second worker" : "resume"}; the invariants hold`, async () => {
      for (const point of points) {
        const r = await runCase({ url: lanes[lane].url }, counter, point, seed);
        assert.deepEqual(r.violations, [], `${point} seed ${seed} (run ${r.runId})`);
        assert.ok(r.crashed, `${point} seed ${seed}: the crash point was never reached; the process printed:\n${r.firstOutput}`);
      }
    });
  }
});
