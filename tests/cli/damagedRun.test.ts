import { sharedTest } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../db/index.ts";
import { STACK_LINE, ariadne } from "./ariadneProcess.ts";

const lines = (text: string) => text.split("\n").filter(Boolean);

/**
 * One deleted event row (issue 33, item 3): the run it belongs to is named and
 * quarantined, the rest of the store keeps working. Given two recorded runs on
 * an embedded store and one event of the first deleted behind the store's back
 * (its append-only trigger set aside), `status` and `verify` of the other run
 * and a new `run` succeed, each saying in one line which run is quarantined;
 * `status` and `verify` of the damaged run exit 1 naming its stream and the
 * version that cannot be read. It runs on one Node line of `npm test`, the second
 * (tests/support/testShare.ts).
 */
const test = sharedTest(1);

test("a deleted event quarantines its run: other runs and new runs work; the damaged run's status and verify name the stream and version", { timeout: 240_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "ariadne-damaged-run-"));
  try {
    const runs: { runId: string; rootHash: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await ariadne(["run", "--json", "--data-dir", dir]);
      assert.equal(r.code, 0, r.stderr);
      runs.push(JSON.parse(r.stdout));
    }
    const [{ runId: damaged }, { runId: intact, rootHash: intactRoot }] = runs as [(typeof runs)[0], (typeof runs)[0]];

    const database = await openDatabase({ dataDir: dir });
    let streamId: string;
    let version: number;
    try {
      // An executor's stream, in its middle: a row lost from the heap, not one the append left out.
      const { rows } = await sql<{ stream_id: string; stream_version: number }>`
        SELECT stream_id, stream_version FROM ariadne_events
        WHERE run_id = ${damaged} AND stream_id LIKE 'executor-%' AND stream_version = 3 ORDER BY stream_id LIMIT 1`.execute(database.db);
      assert.ok(rows[0], "the damaged run has an executor stream of 3 events or more");
      ({ stream_id: streamId, stream_version: version } = rows[0]);
      await sql`SET session_replication_role = replica`.execute(database.db);
      await sql`DELETE FROM ariadne_events WHERE stream_id = ${streamId} AND stream_version = ${version}`.execute(database.db);
    } finally {
      await database.close();
    }

    const quarantineNote = new RegExp(`run ${damaged} is quarantined`);
    // verify is "intact" (exit 0) only when something outside the database vouches for the run: here the root hash it printed.
    for (const args of [["status", intact], ["verify", intact, "--root", intactRoot], ["run"]]) {
      const r = await ariadne([...args, "--data-dir", dir]);
      assert.equal(r.code, 0, `${args.join(" ")} exited ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, quarantineNote, `${args[0]} says which run is quarantined`);
      assert.doesNotMatch(r.stderr, /damaged store/);
    }
    for (const command of ["status", "verify"]) {
      const r = await ariadne([command, damaged, "--data-dir", dir]);
      assert.equal(r.code, 1, `${command} of the damaged run exits 1: ${r.stdout}${r.stderr}`);
      assert.doesNotMatch(r.stderr, STACK_LINE);
      // status refuses the run; verify reports its chain broken there: either way the stream and the version.
      const said = [...lines(r.stdout), ...lines(r.stderr)].filter((l) => l.includes(streamId) && !quarantineNote.test(l));
      assert.equal(said.length, 1, r.stdout + r.stderr);
      assert.match(said[0], new RegExp(`is damaged.*version ${version}\\b|NOT intact.*where ${version} was expected`));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
