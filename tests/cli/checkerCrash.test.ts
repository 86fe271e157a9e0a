import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { openStore } from "../../events/openStore.ts";
import { type CliStore, ariadne, cliStore } from "./ariadneProcess.ts";
import { shareNote, shareOf } from "../support/testShare.ts";

/**
 * Killed mid-check (SIGKILL at a commit boundary of the Checker's work), then
 * resumed: the check is neither lost nor doubled. The points: the Checker's
 * verdicts about to be written (its tools ran), its verdicts written but not the
 * run's check, and the run's check written but not the seal. The points are
 * dealt between the Node lines of `npm test` (tests/support/testShare.ts).
 */
const POINTS = ["before_commit:check_submitted", "after_commit:check_submitted", "after_commit:check_completed"];

describe(`kill the host mid-check, resume: exactly one check_completed, before the seal${shareNote()}`, () => {
  const stores: CliStore[] = [];
  after(() => Promise.all(stores.map((s) => s.dispose())));

  for (const point of shareOf(POINTS, 1)) {
    test(point, async () => {
      const store = await cliStore("checkcrash");
      stores.push(store);
      const killed = await ariadne(["run", "--json", ...store.args], { ...store.env, ARIADNE_CRASH_AT: point });
      assert.notEqual(killed.code, 0, `the run was killed at ${point}: ${killed.stdout}${killed.stderr}`);
      const { store: log, close } = await openStore(store.open);
      try {
        const runId = (await log.readAll()).events.find((e) => e.type === "run_submitted")!.metadata.runId;
        const before = await log.readRun(runId);
        assert.ok(before.some((e) => e.type === "executor_admitted" && e.data.role === "checker"), "killed with the Checker admitted");
        assert.ok(!before.some((e) => e.type === "run_sealed"), "and the run not sealed");

        const resumed = await ariadne(["resume", runId, ...store.args], store.env);
        assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
        const events = await log.readRun(runId);
        const checks = events.filter((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
        assert.equal(checks.length, 1, "one check");
        assert.equal(checks[0].data.checker?.state, "completed");
        assert.equal(checks[0].data.verdict, "supported");
        assert.ok(events.indexOf(checks[0]) < events.findIndex((e) => e.type === "run_sealed"), "before the seal");
        assert.equal(events.filter((e) => e.type === "executor_admitted" && e.data.role === "checker").length, 1, "one Checker");
        assert.equal(events.filter((e) => e.type === "check_submitted").length, 1, "its verdicts once");
        const verify = await ariadne(["verify", runId, ...store.args], store.env);
        // No public key here: the structure is intact, its authenticity not checked (exit 4, never "intact").
        assert.equal(verify.code, 4, verify.stdout + verify.stderr);
        assert.match(verify.stdout, /structure intact, authenticity not checked/);
      } finally {
        await close();
      }
    });
  }
});
