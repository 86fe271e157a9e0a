import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createComputeTools, parseToolInput, workspaceDirFor, type ComputeOptions, type ComputeReport, type Tool, type ToolContext } from "../../tools/index.ts";
import { bytesUnder } from "../../tools/compute/watchSandbox.ts";
import { MemoryBlobStore } from "../support/memoryBlobStore.ts";

/**
 * Code a model wrote, turned against the host: a fork bomb, memory spread over
 * many processes, Deno ArrayBuffers (outside V8's heap limit), a disk filler in
 * the workspace and in /tmp, a file-descriptor leak. Each is stopped by its
 * limit, the tool result names the limit, and the host goes on.
 */
const root = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-limits-test-"));
const blobs = new MemoryBlobStore();
after(() => fs.rm(root, { recursive: true, force: true }));

let calls = 0;
const contextFor = (executorId: string): ToolContext => ({
  runId: "run-limits",
  executorId,
  signal: new AbortController().signal,
  idempotencyKey: `intent-${++calls}`,
  blobs,
  workspaceDir: workspaceDirFor(root, "run-limits", executorId),
  now: () => new Date("2026-03-01T12:00:00Z"),
});

const SMALL: ComputeOptions = { timeLimitMs: 20_000, memoryLimitMb: 512, maxProcesses: 16, maxWorkspaceWriteMb: 32, maxTmpMb: 16, maxOpenFiles: 64, outputCapBytes: 4_000 };

async function compute(language: "python" | "typescript", code: string, options: ComputeOptions = SMALL, ctx = contextFor(`x-${calls}`)): Promise<ComputeReport> {
  const tool = createComputeTools(options)[0] as Tool;
  const parsed = parseToolInput(tool, { language, code });
  assert.ok(parsed.ok);
  return JSON.parse((await tool.runSanitized(parsed.value, ctx)).output) as ComputeReport;
}

/** The host still forks, and nothing of the run is left running. */
function hostUnaffected(report: ComputeReport) {
  assert.equal(spawnSync("true").status, 0, "the host can still start a process");
  assert.ok(report.duration_ms < 20_000, `stopped by its limit, not the wall clock: ${report.duration_ms} ms`);
}

test("every limit has a safe default, reported with each run", async () => {
  const report = await compute("python", "print(1)", {});
  assert.equal(report.status, "ok", report.stderr);
  assert.deepEqual(report.limits, { time_ms: 60_000, memory_mb: 1024, output_bytes: 20_000, processes: 64, workspace_write_mb: 256, workspace_files: 10_000, tmp_mb: 256, tmp_files: 10_000, open_files: 256 });
  assert.deepEqual(report.limits_hit, []);
});

test("a fork bomb stops at the process limit: the run reports it, the host is unaffected", async () => {
  const report = await compute("python", "import os\nwhile True:\n    os.fork()", { ...SMALL, timeLimitMs: 3_000 });
  assert.match(report.limits_hit.join("\n"), /process limit: the run reached its 16 processes/);
  assert.ok(report.usage.peak_processes <= 16 + 3, `at most the limit (and bwrap's own two) at once: ${report.usage.peak_processes}`);
  hostUnaffected(report);
});

const SIX_CHILDREN = [
  "import os, time",
  "for i in range(6):",
  "    if os.fork() == 0:",
  "        block = b'x' * (200 * 1024 * 1024)  # touched, so resident",
  "        time.sleep(30)",
  "        os._exit(0)",
  "time.sleep(30)",
].join("\n");

// Both bounds, each on its own: the kernel's (a memory cgroup of the run's own, where this host lets us make one) and
// the watch's alone (where it does not). Six children touching 200 MB each finish within a tenth of a second: a watch
// that looked every 100 ms let a quiet machine's run reach 1,032 MB before its first look (CI of 48b64b0).
/** Memory is bounded by the kernel where the host gives a run a cgroup, else by the watch: the tests that touch memory or held files run both ways. */
const MODES = [
  { memoryCgroup: true, named: "a memory cgroup where the host allows one" },
  { memoryCgroup: false, named: "the watch alone" },
];

for (const { memoryCgroup, named } of MODES) {
  test(`memory spread over many processes is bounded as a whole: six children of 200 MB against 512 MB (${named})`, async () => {
    const report = await compute("python", SIX_CHILDREN, { ...SMALL, memoryCgroup });
    assert.equal(report.status, "memory_limit", JSON.stringify(report.limits_hit));
    assert.match(report.limits_hit.join("\n"), /memory limit: the run ran out of its 512 MB \(its processes together held \d+ MB when it was killed\)/);
    assert.ok(report.usage.peak_memory_mb < 512 + 400, `stopped soon after passing the limit: ${report.usage.peak_memory_mb} MB`);
    hostUnaffected(report);
  });
}

test("Deno ArrayBuffers, which --max-old-space-size does not cover, are bounded by the memory limit", async () => {
  const report = await compute("typescript", "const kept: Uint8Array[] = [];\nfor (let i = 0; i < 40; i++) kept.push(new Uint8Array(100 * 1024 * 1024).fill(1));\nconsole.log('allocated', kept.length * 100, 'MB');");
  assert.equal(report.status, "memory_limit", JSON.stringify(report));
  assert.doesNotMatch(report.stdout, /allocated 4000 MB/);
  assert.match(report.limits_hit.join("\n"), /memory limit: the run ran out of its 512 MB/);
  hostUnaffected(report);
});

for (const { memoryCgroup, named } of MODES) {
  test(`memory held in memfds (no process's RSS, no address space) counts against the memory limit (${named})`, async () => {
    const code = [
      "import os, time",
      "fds = []",
      "for i in range(40):",
      "    fd = os.memfd_create(f'm{i}')",
      "    for _ in range(30):  # under RLIMIT_FSIZE (32 MB here), which bounds each memfd",
      "        os.write(fd, b'x' * (1024 * 1024))",
      "    fds.append(fd)",
      "print('held', len(fds) * 30, 'MB')",
      "time.sleep(30)",
    ].join("\n");
    const report = await compute("python", code, { ...SMALL, memoryCgroup });
    assert.equal(report.status, "memory_limit", JSON.stringify(report));
    assert.doesNotMatch(report.stdout, /held 1200 MB/);
    assert.match(report.limits_hit.join("\n"), /memory limit: the run ran out of its 512 MB/);
    hostUnaffected(report);
  });
}

for (const { memoryCgroup, named } of MODES) {
  test(`files deleted while still open in the workspace (no name to count) count against the workspace limit (${named})`, async () => {
    const ctx = contextFor(`deleted-filler-${memoryCgroup}`);
    const code = [
      "import os, time",
      "files = []",
      "for i in range(6):",
      "    f = open(f'hidden-{i}.bin', 'wb')",
      "    os.unlink(f'hidden-{i}.bin')",
      "    for _ in range(24):",
      "        f.write(b'x' * (1024 * 1024))",
      "    f.flush()",
      "    files.append(f)",
      "print('hid', len(files) * 24, 'MB')",
      "time.sleep(30)",
    ].join("\n");
    const report = await compute("python", code, { ...SMALL, memoryCgroup }, ctx);
    assert.equal(report.status, "disk_limit", JSON.stringify(report));
    // Writing is faster than the watch's look: the run may print before it is stopped, but not sleep on with the blocks held.
    assert.match(report.limits_hit.join("\n"), /workspace limit: the run wrote more than 32 MB/);
    hostUnaffected(report);
  });
}

test("a disk filler in the workspace is stopped past its limit and what it wrote is removed", async () => {
  const ctx = contextFor("filler");
  const report = await compute("python", "for i in range(40):\n    with open(f'fill-{i}.bin', 'wb') as f:\n        f.write(b'x' * (8 * 1024 * 1024))\nprint('done')", SMALL, ctx);
  assert.equal(report.status, "disk_limit", JSON.stringify(report));
  assert.match(report.limits_hit.join("\n"), /workspace limit: the run wrote more than 32 MB to the workspace and was stopped; the files it wrote were removed/);
  assert.doesNotMatch(report.stdout, /done/);
  const left = (await fs.readdir(ctx.workspaceDir!)).filter((f) => f.startsWith("fill-"));
  assert.deepEqual(left, [], "the run's files are gone");
  assert.ok((await bytesUnder(ctx.workspaceDir!)) < 1024 * 1024);
  hostUnaffected(report);
});

test("a run making files without end (inodes, not bytes) is stopped at the files limit, soon, and what it made is removed", async () => {
  const ctx = contextFor("inode-filler");
  const code = "import os, time\nos.mkdir('d')\nstart = time.time()\nn = 0\nwhile time.time() - start < 15:\n    open(f'd/{n}', 'w').close()\n    n += 1\nprint('made', n)";
  const report = await compute("python", code, { ...SMALL, maxWorkspaceFiles: 2_000 }, ctx);
  assert.equal(report.status, "disk_limit", JSON.stringify(report).slice(0, 2000));
  assert.match(report.limits_hit.join("\n"), /workspace limit: the run made more than 2000 files and folders in the workspace and was stopped/);
  assert.ok(report.duration_ms < 10_000, `stopped by the files limit within seconds, not the program's 15 s: ${report.duration_ms} ms`);
  assert.deepEqual((await fs.readdir(path.join(ctx.workspaceDir!, "d")).catch(() => [])).length, 0, "the files it made are removed");
  assert.ok(report.files_not_published.length <= 21, `the report lists a few files not published, not thousands: ${report.files_not_published.length}`);
  hostUnaffected(report);
});

test("files without end in the private /tmp (inodes are kernel memory, outside the tmpfs's size) are stopped at the /tmp files limit", async () => {
  const code = "import time\nstart = time.time()\nn = 0\nwhile time.time() - start < 15:\n    open(f'/tmp/{n}', 'w').close()\n    n += 1\nprint('made', n)";
  const report = await compute("python", code, { ...SMALL, maxTmpFiles: 2_000 });
  assert.equal(report.status, "disk_limit", JSON.stringify(report).slice(0, 2000));
  assert.match(report.limits_hit.join("\n"), /\/tmp limit: the run made more than 2000 files and folders in \/tmp and was stopped/);
  assert.ok(report.duration_ms < 10_000, `stopped by the limit within seconds, not the program's 15 s: ${report.duration_ms} ms`);
  hostUnaffected(report);
});

test("the report names at most 20 files not published, then how many more", async () => {
  const report = await compute("python", "for i in range(60):\n    open(f'out-{i:02d}.txt', 'w').write('x')", { ...SMALL, maxPublishedFiles: 5 });
  assert.equal(report.status, "ok", report.stderr);
  assert.equal(report.files_written.length, 5);
  assert.equal(report.files_not_published.length, 21);
  assert.deepEqual(report.files_not_published.at(-1), { path: "…", reason: "35 more files not published, not listed" });
});

test("one file larger than the workspace limit is refused by RLIMIT_FSIZE", async () => {
  const report = await compute("python", "with open('big.bin', 'wb') as f:\n    for _ in range(64):\n        f.write(b'x' * (1024 * 1024))");
  assert.equal(report.status, "disk_limit", JSON.stringify(report));
  assert.match(report.limits_hit.join("\n"), /workspace limit: the run wrote more than 32 MB/);
});

test("a disk filler in /tmp meets the size of the private /tmp", async () => {
  const report = await compute("python", "with open('/tmp/fill.bin', 'wb') as f:\n    for _ in range(64):\n        f.write(b'x' * (1024 * 1024))");
  assert.equal(report.status, "disk_limit", JSON.stringify(report));
  assert.match(report.limits_hit.join("\n"), /\/tmp limit: the private \/tmp \(16 MB, held in memory\) is full/);
  hostUnaffected(report);
});

test("a file in /tmp as large as the largest file a run may write is the /tmp limit, not the workspace's: the workspace's files are kept", async () => {
  // The defaults give /tmp and the workspace the same 256 MB, so RLIMIT_FSIZE (EFBIG) can come before the full tmpfs.
  const ctx = contextFor("tmp-efbig");
  const code = "open('kept.txt', 'w').write('result')\nwith open('/tmp/fill.bin', 'wb') as f:\n    for _ in range(64):\n        f.write(b'x' * (1024 * 1024))";
  const report = await compute("python", code, { ...SMALL, maxWorkspaceWriteMb: 16, maxTmpMb: 16 }, ctx);
  assert.equal(report.status, "disk_limit", JSON.stringify(report));
  assert.match(report.limits_hit.join("\n"), /\/tmp limit/, JSON.stringify(report.limits_hit));
  assert.doesNotMatch(report.limits_hit.join("\n"), /workspace limit/);
  assert.equal(await fs.readFile(path.join(ctx.workspaceDir!, "kept.txt"), "utf8"), "result", "nothing the run wrote to the workspace is removed for a /tmp file");
  hostUnaffected(report);
});

test("open files are limited per process", async () => {
  const report = await compute("python", "files = [open('/inputs/../tmp/f%d' % i, 'w') for i in range(1000)]");
  assert.equal(report.status, "error");
  assert.match(report.limits_hit.join("\n"), /open files limit: a process of the run had 64 files open/);
});

test("the program runs with no capabilities, as a uid of its own when the host is root (root ignores RLIMIT_NPROC)", async () => {
  const report = await compute("python", "import os\nstatus = open('/proc/self/status').read()\nprint(os.getuid(), [l for l in status.splitlines() if l.startswith('CapEff')][0])");
  assert.equal(report.status, "ok", report.stderr);
  const [uid, caps] = report.stdout.trim().split(" ", 2);
  if (process.getuid?.() === 0) assert.ok(Number(uid) >= 1_500_000, `not root, not a system account: ${uid}`);
  else assert.equal(Number(uid), process.getuid?.(), "bwrap's user namespace maps the caller's uid");
  assert.match(caps!, /CapEff:\s+0{16}/);
});
