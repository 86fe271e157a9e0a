import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { test } from "node:test";
import { openMemoryCgroup, ownMemoryCgroup } from "../../tools/compute/memoryCgroup.ts";

const MB = 1024 * 1024;

/** How a command ended: its exit code or the signal that ended it. */
const run = (argv: string[]) =>
  new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });

/**
 * This process's own memory cgroup folder on a v1 host (the one this
 * repository's CI runs on), or null. Parsed here apart from ownMemoryCgroup on
 * purpose: it is the oracle that tells a host's refusal from a bug there.
 */
function ownV1MemoryDir(): string | null {
  const line = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"));
  return line ? `/sys/fs/cgroup/memory${line[1]}` : null;
}

test("the cgroup found from mountinfo is the one /proc/self/cgroup names under the usual v1 mount", () => {
  const expected = ownV1MemoryDir();
  if (!existsSync(expected ?? "/nonexistent")) return void assert.notEqual(ownMemoryCgroup()?.version, 1, "no usual v1 memory mount here");
  assert.deepEqual(ownMemoryCgroup(), { version: 1, dir: expected });
});

test("a run in a memory cgroup of its own is held to the limit by the kernel, and the cgroup is gone after", async (t) => {
  const cgroup = openMemoryCgroup(64 * MB);
  if (!cgroup) {
    // Null only where the host refuses us a cgroup: show that it does, so a bug cannot pass for a host's refusal.
    const dir = ownV1MemoryDir();
    if (dir) assert.throws(() => mkdirSync(`${dir}/ariadne-test-${process.pid}`), "the host lets us make a memory cgroup, but openMemoryCgroup did not");
    t.diagnostic("this host makes no memory cgroup: the watch alone bounds a run's memory (tested in sandboxLimits.test.ts)");
    return;
  }
  assert.ok(existsSync(cgroup.dir));
  const ended = await run(cgroup.enter(["/usr/bin/python3", "-c", "block = b'x' * (200 * 1024 * 1024)"]));
  assert.equal(ended.signal, "SIGKILL", `200 MB against 64 MB is killed by the kernel: ${JSON.stringify(ended)}`);
  assert.ok(cgroup.oomKills() >= 1, "the kill is counted");
  assert.ok(cgroup.peakBytes() <= 64 * MB, `never past the limit: ${cgroup.peakBytes()} bytes`);
  const fits = await run(cgroup.enter(["/usr/bin/python3", "-c", "block = b'x' * (8 * 1024 * 1024)"]));
  assert.deepEqual([fits.code, fits.signal], [0, null], "what fits runs to its end");
  await cgroup.close();
  assert.equal(existsSync(cgroup.dir), false, "removed once the run has ended");
});

test("a wrapper that cannot join the cgroup stops before the program runs, and says so", async () => {
  const cgroup = openMemoryCgroup(64 * MB);
  if (!cgroup) return void assert.equal(openMemoryCgroup(64 * MB), null, "a host that refuses once refuses again");
  await cgroup.close();
  // Its folder is gone: the wrapper's write has nowhere to go.
  const ended = await run(cgroup.enter(["/usr/bin/python3", "-c", "open('/dev/stderr', 'w').write('ran')"]));
  assert.equal(ended.code, 125);
  assert.match(ended.stderr, /sandbox: could not join its memory cgroup/);
  assert.doesNotMatch(ended.stderr, /ran/);
});

test("a cgroup left by a host process that died is removed by the next; a living one's is not", async () => {
  const parent = ownV1MemoryDir();
  const probe = openMemoryCgroup(64 * MB);
  if (!parent || !probe) return void assert.equal(probe, null, "no v1 memory hierarchy here: nothing is left behind to sweep");
  await probe.close();
  const dead = `${parent}/ariadne-sandbox-999999999-left`;
  const living = `${parent}/ariadne-sandbox-${process.ppid}-living`;
  mkdirSync(dead);
  mkdirSync(living);
  try {
    const cgroup = openMemoryCgroup(64 * MB)!;
    await cgroup.close();
    assert.equal(existsSync(dead), false, "a dead maker's cgroup is swept");
    assert.equal(existsSync(living), true, "a living maker's cgroup is left to it");
  } finally {
    for (const dir of [dead, living]) if (existsSync(dir)) rmdirSync(dir);
  }
});
