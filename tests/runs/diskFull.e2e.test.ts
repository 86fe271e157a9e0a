import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../events/openStore.ts";
import { ariadne, start } from "./processes.ts";
import { type SmallDisk, mountSmallDisk } from "../support/smallDisk.ts";

/**
 * A full disk under the embedded store (issue 17, defect 3): the data directory
 * on a small tmpfs of the test's own, filled while `ariadne run` has its
 * Children at work. The run stops, saying in one line that the disk is full; so
 * do `status` and `verify` while it stays full, and none of them hangs. No
 * executor records `failed`; once the filler is removed, `ariadne resume`
 * finishes the run and it verifies.
 */
const STACK_LINE = /^\s+at /m;
/** The lines a command wrote that are errors (progress and the offline note are not). */
const errorLines = (output: string) => output.split("\n").filter((l) => l.startsWith("ariadne: "));

describe("a full disk under the embedded store", () => {
  let disk: SmallDisk | string;
  let template: string;
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

  test("the run is interrupted in one line, status and verify exit, nothing failed, resume finishes it", { timeout: 600_000 }, async (t) => {
    if (typeof disk === "string") return t.skip(disk);
    const data = join(disk.dir, "data");
    await cp(join(template, "data"), data, { recursive: true });
    const env = { ARIADNE_SCRIPTED_LATENCY_MS: "700" };
    const args = ["--data-dir", data];

    const run = start(["run", ...args], env);
    await run.waitFor(/child:compute-analyst#3\s+admitted/);
    const filled = await disk.fill();
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([run.exited, new Promise<string>((r) => (timer = setTimeout(() => r("hung"), 120_000)))]);
    clearTimeout(timer);
    if (code === "hung") run.child.kill("SIGKILL");
    const said = run.output();
    assert.equal(code, 1, `ariadne run exits 1 on a full disk (filled ${filled} bytes)\n${said}`);
    assert.doesNotMatch(said, STACK_LINE, said);
    const runId = /^run (\S+)$/m.exec(said)![1];
    assert.deepEqual(errorLines(said).length, 1, said);
    assert.match(errorLines(said)[0], new RegExp(`^ariadne: no space left on device at ${data}\\b.*ariadne resume ${runId}`));

    // While the disk stays full, the commands that only read still exit, naming the full disk.
    for (const command of [["status", runId], ["verify", runId]]) {
      const started = Date.now();
      const r = await withDeadline([...command, ...args], env, 60_000);
      assert.ok(r.code !== "hung", `${command[0]} hung on a full disk: ${r.output}`);
      assert.equal(r.code, 1, `${command[0]}: ${r.output}`);
      assert.deepEqual(errorLines(r.output).length, 1, r.output);
      assert.match(errorLines(r.output)[0], new RegExp(`^ariadne: no space left on device at ${data}\\b`), r.output);
      assert.doesNotMatch(r.output, STACK_LINE, r.output);
      assert.ok(Date.now() - started < 60_000);
    }

    await disk.free();
    // Nothing recorded a failure: the run is interrupted, with every event written before the disk filled.
    const { store, close } = await openStore({ dataDir: data });
    let before: number;
    try {
      const events = await store.readRun(runId);
      before = events.length;
      assert.deepEqual(events.filter((e) => e.type === "failed").map((e) => e.data), [], "no executor recorded failed");
      assert.ok(events.some((e) => e.type === "executor_admitted" && /compute-analyst/.test(JSON.stringify(e.data))), "what was acknowledged before the disk filled is kept");
    } finally {
      await close();
    }
    const resumed = await ariadne(["resume", runId, ...args], env);
    assert.equal(resumed.code, 0, resumed.output);
    const verified = await ariadne(["verify", runId, ...args], env);
    assert.equal(verified.code, 0, verified.output);
    assert.match(verified.output, /intact .*sealed/);
    const { store: after, close: closeAfter } = await openStore({ dataDir: data });
    try {
      const events = await after.readRun(runId);
      assert.ok(events.length > before, "the resume wrote the rest of the run");
      assert.equal(events.filter((e) => e.type === "failed").length, 0);
    } finally {
      await closeAfter();
    }
  });
});

/** `ariadne ARGS` to its end, or killed once `ms` have passed ("hung"). */
async function withDeadline(args: string[], env: Record<string, string>, ms: number): Promise<{ code: number | string; output: string }> {
  const p = start(args, env);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([p.exited, new Promise<string>((r) => (timer = setTimeout(() => r("hung"), ms)))]);
  clearTimeout(timer);
  if (code === "hung") p.child.kill("SIGKILL");
  return { code, output: p.output() };
}
