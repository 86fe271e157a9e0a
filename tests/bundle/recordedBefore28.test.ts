import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { verifyBundle } from "../../bundle/verifyBundle.ts";
import { openStore } from "../../events/openStore.ts";
import { type CliStore, ariadne, cliStore } from "../cli/ariadneProcess.ts";
import { scratchDir } from "./exportedRun.ts";
import { shareNote, shareOf } from "../support/testShare.ts";
import { RECORDED_BEFORE_28, loadRecordedRun, recordedLinks, recordedRuns, recordedSealKey } from "../support/recordedRuns.ts";

/**
 * Runs recorded by the code before issue 28 (texts rendered by the fold, no
 * request version, nothing of what a model was offered) are read by today's
 * code as their writer would have: the bundles verify offline, and loaded into
 * a fresh store every executor's transcript rebuilds every recorded turn with
 * its digest matching, `ariadne verify` passes, and a new export verifies.
 * The three recorded runs are dealt between the Node lines of `npm test`.
 */
const publicKey = createPublicKey(readFileSync(recordedSealKey()));

describe(`runs recorded before issue 28${shareNote()}`, () => {
  for (const run of shareOf(recordedRuns())) {
    describe(run.name, () => {
      let store: CliStore;
      const executors = [...new Set(recordedLinks(run.dir).flatMap((l) => (l.type === "executor_admitted" ? [l.metadata.executorId] : [])))];
      before(async () => {
        store = await cliStore(`rec28_${run.name.replace(/-/g, "_")}`);
        const opened = await openStore(store.open);
        try {
          await loadRecordedRun(opened.database, run);
        } finally {
          await opened.close();
        }
      });
      after(() => store?.dispose());

      test("the bundle as recorded verifies offline, derived files included", () => {
        const verified = verifyBundle(run.dir, { publicKey });
        // Signature, files, chains, seal and blobs as written, and the derived files (claims, check report, audit
        // page) re-derived by today's code: a check recorded before flags had kinds keeps the badges of its time.
        const problems = verified.problems;
        assert.deepEqual(problems, []);
      });

      test("ariadne verify RUN passes, seal signature checked", async () => {
        const out = await ariadne(["verify", run.runId, "--key", recordedSealKey(), ...store.args], store.env);
        assert.equal(out.code, 0, out.stdout + out.stderr);
      });

      test("ariadne transcript rebuilds every request of every executor as it was sent", async () => {
        assert.ok(executors.length >= 3, `${run.name} has executors`);
        let turns = 0;
        for (const executorId of executors) {
          const out = await ariadne(["transcript", executorId, ...store.args], store.env);
          // What the models were shown is upcast by the frozen templates of the time; what they were offered
          // was not recorded then, so it is rebuilt from this host's tools and the profile each was bound to,
          // found by its hash (a version changed since, the Reviewer's, in profiles/shippedBefore28/).
          assert.equal(out.code, 0, `${executorId}: ${out.stderr}`);
          assert.match(out.stdout, /^request code: recorded before request versions were recorded; this Ariadne's request code is [0-9a-f]{16}: .*the system prompt and tool specs are rebuilt by this version from this host's tools and profiles/m);
          assert.match(out.stdout, /^offered: not recorded \(admitted before the offered specs were\)/m);
          assert.doesNotMatch(out.stdout, /MISMATCH/, `${executorId}: every request digest matches`);
          turns += out.stdout.match(/^turn \d+ .* request digest verified$/gm)?.length ?? 0;
        }
        // Every turn the run recorded (a Child cancelled during its first model call has none).
        assert.equal(turns, recordedLinks(run.dir).filter((l) => l.type === "turn").length, `${run.name}: every recorded turn rebuilt and verified`);
      });

      test("ariadne export writes a bundle that verifies with the same key", async () => {
        const dir = join(scratchDir(`rec28-${run.name}`), "bundle");
        const exported = await ariadne(["export", run.runId, dir, ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: join(RECORDED_BEFORE_28, "seal.key") });
        assert.equal(exported.code, 0, exported.stderr);
        const verified = await ariadne(["verify", dir, "--key", recordedSealKey(), "--json"], {});
        const problems = (JSON.parse(verified.stdout) as { problems: string[] }).problems;
        assert.deepEqual(problems, [], verified.stderr);
        assert.equal(readFileSync(join(dir, "events.jsonl"), "utf8"), readFileSync(join(run.dir, "events.jsonl"), "utf8"), "the events are exported as they were stored");
      });
    });
  }
});
