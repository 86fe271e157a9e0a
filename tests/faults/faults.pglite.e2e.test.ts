import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEffectCounter } from "./effectCounter.ts";
import { runCase } from "./harness.ts";
import { shareNote, shareOf } from "../support/testShare.ts";

/**
 * The single-process subset on PGlite: one process at a time on an embedded
 * data directory, killed at a crash point, then `resume` in a new process.
 * (Each PGlite start costs seconds and about 1 GB, so only the boundaries
 * where a crash loses most: an effect without its outcome, a handoff between
 * commit and consumption, a takeover, an append never sent, and one whose
 * transaction was open when the process died.)
 */
const POINTS = ["after_effect:record_effect", "after_commit:handoff_committed", "during:lease_takeover", "before_commit:turn", "during_commit:tool_completed"];

describe(`fault matrix, single-process subset (PGlite data directory, SIGKILL)${shareNote()}`, () => {
  let counter: Awaited<ReturnType<typeof startEffectCounter>>;
  let dir: string;
  before(async () => {
    counter = await startEffectCounter();
    dir = await mkdtemp(join(tmpdir(), "ariadne-faults-"));
  });
  after(async () => {
    await counter?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const point of shareOf(POINTS)) {
    test(`${point}: killed there, resumed in a new process; the invariants hold`, async () => {
      const r = await runCase({ dataDir: join(dir, "data") }, counter, point, 1);
      assert.ok(r.crashed, `${point}: the crash point was never reached; the process printed:\n${r.firstOutput}`);
      assert.deepEqual(r.violations, [], `run ${r.runId}`);
    });
  }
});
