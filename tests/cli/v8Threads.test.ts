import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { poolSizeOf, threadsInStartOrder, v8PlatformThreads } from "../../cli/v8Threads.mjs";

const named = [
  { tid: 10, name: "MainThread" },
  { tid: 11, name: "DelayedTaskSche" },
  ...[12, 13, 14, 15].map((tid) => ({ tid, name: "V8Worker" })),
  { tid: 17, name: "SignalInspector" },
  { tid: 18, name: "libuv-worker" },
];
// Node 20: every thread is "node"; the platform's delayed-task thread and pool start first, the libuv pool later.
const unnamed = [10, 11, 12, 13, 14, 15, 16, 20, 21, 22, 23].map((tid) => ({ tid, name: "node" }));

test("V8's platform threads: by name where node names them, else the pool's size of threads after the first two", () => {
  assert.deepEqual(v8PlatformThreads(named, 4), [12, 13, 14, 15]);
  assert.deepEqual(v8PlatformThreads(named, 2), [12, 13, 14, 15], "the names say, whatever the flag");
  assert.deepEqual(v8PlatformThreads(unnamed, 4), [12, 13, 14, 15]);
  assert.deepEqual(v8PlatformThreads(unnamed, 2), [12, 13]);
});

test("threads that cannot be told apart are left alone: a pool node sizes itself, names that are not node's", () => {
  assert.deepEqual(v8PlatformThreads(unnamed, 0), []);
  assert.deepEqual(v8PlatformThreads([{ tid: 1, name: "deno" }, { tid: 2, name: "tokio-runtime-w" }, { tid: 3, name: "tokio-runtime-w" }], 4), []);
  assert.deepEqual(v8PlatformThreads([], 4), []);
});

test("the pool's size is node's --v8-pool-size in either spelling, else node's default of 4", () => {
  assert.equal(poolSizeOf([]), 4);
  assert.equal(poolSizeOf(["--max-old-space-size=512", "--v8-pool-size=2"]), 2);
  assert.equal(poolSizeOf(["--v8_pool_size=0"]), 0);
});

test("threads are ordered by when they started, not by how /proc lists them; a name with ') ' in it does not shift the fields", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ariadne-tasks-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Field 22 of stat is the start time; the name sits in parentheses and may hold ") ".
  const task = (tid: number, name: string, start: number) => {
    mkdirSync(join(dir, String(tid)));
    writeFileSync(join(dir, String(tid), "comm"), `${name}\n`);
    const fields = Array.from({ length: 50 }, (_, i) => (i === 19 ? String(start) : "0"));
    writeFileSync(join(dir, String(tid), "stat"), `${tid} (${name}) ${fields.join(" ")}\n`);
  };
  task(300, "late", 900);
  task(5, "main", 100);
  task(7, "b) c", 200);
  task(6, "a", 200);
  // A thread that ended after the listing: its folder is there, its files are not.
  mkdirSync(join(dir, "8"));
  assert.deepEqual(threadsInStartOrder(dir), [
    { tid: 5, name: "main" },
    { tid: 6, name: "a" },
    { tid: 7, name: "b) c" },
    { tid: 300, name: "late" },
  ]);
});

test(`a host lowers V8's platform threads to nice 19 and no other thread; those are the threads that mark the heap; a command lowers none (${process.version})`, { skip: process.platform !== "linux" && "Linux only" }, () => {
  const module = new URL("../../cli/v8Threads.mjs", import.meta.url).href;
  // A heap kept busy (old objects churned) so concurrent marking runs on V8's threads, then each thread's nice and CPU ticks.
  const script = `
    import { readFileSync } from "node:fs";
    const { lowerV8ThreadsFor, threadsInStartOrder } = await import(${JSON.stringify(module)});
    const command = lowerV8ThreadsFor("run");
    const host = lowerV8ThreadsFor("worker");
    let keep = [];
    for (let i = 0; i < 4e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 1e6) keep = keep.slice(5e5); }
    const threads = threadsInStartOrder().map(({ tid }) => {
      const f = readFileSync("/proc/self/task/" + tid + "/stat", "utf8").split(") ")[1].split(" ");
      return { tid, nice: Number(f[16]), ticks: Number(f[11]) + Number(f[12]) };
    });
    console.log(JSON.stringify({ command, host, threads }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  assert.equal(r.status, 0, r.stderr);
  const { command, host, threads } = JSON.parse(r.stdout) as { command: number[]; host: number[]; threads: { tid: number; nice: number; ticks: number }[] };
  assert.deepEqual(command, []);
  assert.equal(host.length, 4, "node's default pool");
  const [main, ...others] = threads;
  assert.equal(main.nice, 0);
  for (const t of others) assert.equal(t.nice, host.includes(t.tid) ? 19 : 0, `thread ${t.tid}`);
  const ticks = (lowered: boolean) => others.filter((t) => host.includes(t.tid) === lowered).reduce((sum, t) => sum + t.ticks, 0);
  assert.ok(ticks(true) > ticks(false), `V8's threads did the marking: ${ticks(true)} ticks against ${ticks(false)} for the other threads`);
});
