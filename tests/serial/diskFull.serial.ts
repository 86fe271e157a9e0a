import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { ariadne, start } from "../runs/processes.ts";
import { type OwnCluster, ownClusterUnavailable, startOwnCluster } from "../support/ownCluster.ts";
import { type SmallDisk, mountSmallDisk } from "../support/smallDisk.ts";

/**
 * A full disk under the store (issue 17, defect 3): the embedded store's data
 * directory, or a PostgreSQL cluster of the test's own, on a small tmpfs of the
 * test's own, filled while `ariadne run` has its Children at work. The run stops,
 * saying in one line that the disk is full and how to resume it; `status` and
 * `verify` exit while it stays full (on the embedded store, naming the full disk:
 * it cannot start). No executor records `failed`, nothing recorded before is
 * lost; once the filler is removed, `ariadne resume` finishes the run and it verifies.
 * Where no tmpfs can be mounted (not root, a CI that forbids it) each test is
 * skipped, saying why.
 */
const STACK_LINE = /^\s+at /m;
/** The lines a command wrote that are errors (progress and the offline note are not). */
const errorLines = (output: string) => output.split("\n").filter((l) => l.startsWith("ariadne: "));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const ENV = { ARIADNE_SCRIPTED_LATENCY_MS: "700" };

interface Target {
  disk: SmallDisk;
  /** CLI arguments and environment that reach the store on the disk. */
  args: string[];
  env: Record<string, string>;
  open: { url?: string; dataDir?: string };
  /** How the one error line names the full disk. */
  where: string;
  /** Whether status and verify can still read while the disk is full (a server can; PGlite cannot start). */
  readsWhileFull: boolean;
}

async function fullDiskDuringRun(t: Target): Promise<void> {
  const run = start(["run", ...t.args], { ...ENV, ...t.env });
  // The third Child admitted (whichever it is: the three delegations are admitted concurrently).
  await run.waitFor(/child:[\w-]+#3\s+admitted/);
  const filled = await t.disk.fill();
  const code = await deadline(run, 120_000);
  const said = run.output();
  assert.equal(code, 1, `ariadne run exits 1 on a full disk (filled ${filled} bytes)\n${said}`);
  assert.doesNotMatch(said, STACK_LINE, said);
  const runId = /^run (\S+)$/m.exec(said)![1];
  assert.equal(errorLines(said).length, 1, said);
  assert.match(errorLines(said)[0], new RegExp(`^ariadne: no space left on device at ${escape(t.where)}\\b.*ariadne resume ${runId}`));

  // While the disk stays full, status and verify exit: they read what there is, or name the full disk.
  for (const command of [["status", runId], ["verify", runId]]) {
    const p = start([...command, ...t.args], { ...ENV, ...t.env });
    const exited = await deadline(p, 60_000);
    const out = p.output();
    assert.notEqual(exited, "hung", `${command[0]} hung on a full disk: ${out}`);
    assert.doesNotMatch(out, STACK_LINE, out);
    if (t.readsWhileFull) {
      // verify has no public key here: the structure is intact, its authenticity not checked (exit 4).
      assert.equal(exited, command[0] === "verify" ? 4 : 0, `${command[0]}: ${out}`);
      if (command[0] === "status") assert.match(out, /: interrupted ·/);
    } else {
      assert.equal(exited, 1, `${command[0]}: ${out}`);
      assert.equal(errorLines(out).length, 1, out);
      assert.match(errorLines(out)[0], new RegExp(`^ariadne: no space left on device at ${escape(t.where)}\\b`), out);
    }
  }

  await t.disk.free();
  // Nothing recorded a failure: the run is interrupted, with every event written before the disk filled.
  const stored = await eventsOf(t, runId);
  assert.deepEqual(stored.filter((e) => e.type === "failed").map((e) => e.data), [], "no executor recorded failed");
  assert.equal(stored.filter((e) => e.type === "executor_admitted").length, 4, "the admissions acknowledged before the disk filled are kept");
  const resumed = await ariadne(["resume", runId, ...t.args], { ...ENV, ...t.env });
  assert.equal(resumed.code, 0, resumed.output);
  const verified = await ariadne(["verify", runId, ...t.args], t.env);
  assert.equal(verified.code, 4, verified.output);
  assert.match(verified.output, /structure intact[\s\S]*sealed/);
  const finished = await eventsOf(t, runId);
  assert.ok(finished.length > stored.length, "the resume wrote the rest of the run");
  assert.equal(finished.filter((e) => e.type === "failed").length, 0);
  assert.deepEqual(finished.slice(0, stored.length).map((e) => e.eventId), stored.map((e) => e.eventId), "the resume kept what was there");
}

async function eventsOf(t: Target, runId: string) {
  const { store, close } = await openStore(t.open);
  try {
    return await store.readRun(runId);
  } finally {
    await close();
  }
}

/** The process's exit code, or "hung" (and killed) once `ms` have passed. */
async function deadline(p: ReturnType<typeof start>, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.exited, new Promise<string>((r) => (timer = setTimeout(() => r("hung"), ms)))]);
  clearTimeout(timer);
  if (code === "hung") p.child.kill("SIGKILL");
  return code;
}

describe("a full disk under the embedded store", () => {
  let disk: SmallDisk | string;
  let template: string | undefined;
  before(async () => {
    disk = await mountSmallDisk(64);
    if (typeof disk === "string") return;
    // A migrated store made once off the small disk (PGlite's initdb is slow) and copied onto it.
    template = await mkdtemp(join(tmpdir(), "ariadne-disk-template-"));
    const made = await ariadne(["migrate", "--data-dir", join(template, "data")], {});
    assert.equal(made.code, 0, made.output);
  });
  after(async () => {
    if (typeof disk !== "string") await disk?.unmount();
    if (template) await rm(template, { recursive: true, force: true });
  });

  test("the run is interrupted in one line, status and verify exit naming the disk, nothing failed, resume finishes it", { timeout: 600_000 }, async (t) => {
    if (typeof disk === "string") return t.skip(disk);
    const data = join(disk.dir, "data");
    await cp(join(template!, "data"), data, { recursive: true });
    await fullDiskDuringRun({ disk, args: ["--data-dir", data], env: {}, open: { dataDir: data }, where: data, readsWhileFull: false });
  });
});

describe("a full disk under PostgreSQL (a cluster of the test's own)", () => {
  let disk: SmallDisk | string;
  let cluster: OwnCluster | undefined;
  before(async () => {
    const why = ownClusterUnavailable();
    if (why) return void (disk = why);
    const asRoot = process.getuid?.() === 0;
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
    disk = await mountSmallDisk(64, asRoot ? { uid: id("-u"), gid: id("-g") } : undefined);
    if (typeof disk === "string") return;
    // The data files on the small disk, pg_wal off it. A full WAL disk is another fault: PostgreSQL
    // PANICs and stops, which the run sees as a server gone away (the restart tests); and WAL segments
    // the server recycles would give the disk room back in the middle of the test.
    cluster = await startOwnCluster({ baseDir: disk.dir, walOffBaseDir: true });
  });
  after(async () => {
    await cluster?.destroy();
    if (typeof disk !== "string") await disk?.unmount();
  });

  test("the run is interrupted in one line naming the server, nothing failed, resume finishes it", { timeout: 600_000 }, async (t) => {
    if (typeof disk === "string") return t.skip(disk);
    const scratch = await createScratchDatabase(`ariadne_diskfull_${process.pid}`, cluster!.adminUrl);
    const env = { DATABASE_URL: scratch.url };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
    await fullDiskDuringRun({ disk, args: [], env, open: { url: scratch.url }, where: `PostgreSQL 127.0.0.1:${cluster!.port}/`, readsWhileFull: true });
  });
});
