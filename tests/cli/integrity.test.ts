import { describe } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { DamagedStoreError } from "../../core/errors.ts";
import { openDatabase } from "../../db/index.ts";
import { openStore } from "../../events/openStore.ts";
import { verifyRun } from "../../events/index.ts";
import { ROOT, ariadne, lines } from "./ariadneProcess.ts";
import { shareNote, sharedTest } from "../support/testShare.ts";

const STACK_LINE = /^\s+at /m;

// Every store here is an embedded one in a fresh directory, opened by real processes. The tests are
// dealt between the Node lines of `npm test` (tests/support/testShare.ts): the second takes two.
const test = sharedTest(1);

describe(`integrity from the command line${shareNote()}`, () => {
  test("run prints the root hash with the answer; verify checks the run against it", { timeout: 180_000 }, async () => {
    await withDataDir(async (dir) => {
      const text = await ariadne(["run", "--data-dir", dir]);
      assert.equal(text.code, 0, text.stderr);
      const runId = /^run (\S+) · \d+ events/m.exec(text.stdout)?.[1];
      const root = /^root hash ([0-9a-f]{64}) · check later with: ariadne verify (\S+) --root \1$/m.exec(text.stdout);
      assert.ok(runId && root, text.stdout);
      assert.equal(root[2], runId);

      const intact = await ariadne(["verify", runId, "--data-dir", dir, "--root", root[1]]);
      assert.equal(intact.code, 0, intact.stderr);
      // The run's stream, Main's, three Children's and the Checker's.
      assert.match(intact.stdout, new RegExp(`^run ${runId}: intact · 6 streams, \\d+ events · sealed, root hash ${root[1]} · root hash as expected$`, "m"));

      const other = "0".repeat(64);
      const wrong = await ariadne(["verify", runId, "--data-dir", dir, "--root", other]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stdout, new RegExp(`NOT intact: run-${runId} v\\d+ .*not the expected ${other}`));

      const json = await ariadne(["run", "--json", "--data-dir", dir]);
      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout);
      assert.match(result.rootHash, /^[0-9a-f]{64}$/);
      const verified = await ariadne(["verify", result.runId, "--json", "--data-dir", dir, "--root", result.rootHash]);
      assert.equal(verified.code, 0, verified.stderr);
      const report = JSON.parse(verified.stdout);
      assert.equal(report.ok, true);
      assert.equal(report.rootHash, result.rootHash);
      assert.equal(report.firstBad, null);

    });
  });

  test("a store with a truncated table file quarantines the runs that lost rows, never half-read", { timeout: 180_000 }, async () => {
    await withDataDir(async (dir) => {
      const first = await ariadne(["run", "--json", "--data-dir", dir]);
      assert.equal(first.code, 0, first.stderr);
      const { runId } = JSON.parse(first.stdout);

      // Cut the events table's heap file down to its first page, as a lost write or a full disk would.
      const database = await openDatabase({ dataDir: dir });
      const { rows } = await sql<{ path: string }>`SELECT pg_relation_filepath('ariadne_events') AS path`.execute(database.db);
      await database.close();
      await truncate(join(dir, rows[0].path), 8192);

      // The lost rows quarantine the run they belonged to: named at open, its verify refused naming the stream and version.
      const { code, stdout, stderr } = await ariadne(["verify", runId, "--data-dir", dir]);
      assert.equal(code, 1, `verify exited ${code}: ${stdout}`);
      assert.doesNotMatch(stderr, STACK_LINE);
      assert.match(stderr, new RegExp(`^ariadne: run ${runId} is quarantined: stream \\S+ cannot be read from version \\d+ \\(its head records \\d+ events, \\d+ can be read\\)`, "m"));
      assert.match(stdout + stderr, new RegExp(`run ${runId} is damaged: stream \\S+ cannot be read from version \\d+|NOT intact`));

      // Past the check at open, a read that meets the damage is reported as damage too, not as a raw database error.
      const { database: opened, close } = await openStore({ dataDir: dir, consistencyCheck: false });
      try {
        await assert.rejects(verifyRun(opened, runId), (e) => e instanceof DamagedStoreError && /damaged store at .*: reading run .* failed: could not read/.test(e.message));
      } finally {
        await close();
      }
    });
  });

  test("a second process on one PGlite directory is refused at once; a SIGKILLed holder leaves nothing stuck", { timeout: 180_000 }, async () => {
    await withDataDir(async (dir) => {
      // Given a process holding the store
      const first = await hold(dir);
      assert.equal(first.version, 1);

      // When a second opens it, it is refused with one line naming the directory and the holder
      const second = await ariadne(["migrate", "--data-dir", dir]);
      assert.equal(second.code, 1);
      assert.equal(lines(second.stderr).length, 1, second.stderr);
      assert.match(second.stderr, new RegExp(`the embedded store at ${dir} is in use by process ${first.pid}`));

      // And the holder is undisturbed: it closes cleanly and its event is there for the next one
      first.child.stdin.end();
      assert.equal(await exitOf(first.child), 0);
      const next = await hold(dir);
      assert.equal(next.version, 2);

      // When a holder is killed outright, its lock does not outlive it
      next.child.kill("SIGKILL");
      assert.equal(await exitOf(next.child), "SIGKILL");
      const after = await ariadne(["migrate", "--data-dir", dir]);
      assert.equal(after.code, 0, after.stderr);
      const last = await hold(dir);
      assert.ok(last.version >= 2, `the events before the kill are there (version ${last.version})`);
      last.child.stdin.end();
      assert.equal(await exitOf(last.child), 0);
    });
  });
});

/** Holders still running; a failed test must not leave one holding the test process open. */
const holders = new Set<ChildProcessWithoutNullStreams>();

async function withDataDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ariadne-integrity-"));
  try {
    await body(dir);
  } finally {
    for (const child of holders) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}

/** Starts tests/support/holdStore.ts on the directory and waits until it holds the store. */
async function hold(dir: string): Promise<{ child: ChildProcessWithoutNullStreams; pid: number; version: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "tests/support/holdStore.ts"), dir], { cwd: ROOT });
  holders.add(child);
  child.on("close", () => holders.delete(child));
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
      const ready = /^ready (\d+) (\d+)$/m.exec(stdout);
      if (ready) resolve({ child, pid: Number(ready[1]), version: Number(ready[2]) });
    });
    child.on("close", (code) => reject(new Error(`holder exited ${code} before it was ready: ${stderr}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
}


