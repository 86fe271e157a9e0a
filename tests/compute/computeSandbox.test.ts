import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { createComputeTools, createWorkspaceTools, parseToolInput, workspaceDirFor, type ComputeOptions, type ComputeReport, type Tool, type ToolContext } from "../../tools/index.ts";
import type { ToolOutput } from "../../tools/defineTool.ts";
import { MemoryBlobStore } from "../support/memoryBlobStore.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const root = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-compute-test-"));
const blobs = new MemoryBlobStore();
// Short limits keep the limit tests to a second or two each.
const FAST: ComputeOptions = { timeLimitMs: 10_000, memoryLimitMb: 512, outputCapBytes: 4_000 };

// A secret outside every workspace, and a server on the host's loopback, that no sandboxed code may reach.
const secretDir = path.join(root, "outside");
const SECRET = "hunter2-outside-the-workspace";
let server: net.Server;
let port = 0;
let connections = 0;
before(async () => {
  await fs.mkdir(secretDir, { recursive: true });
  await fs.writeFile(path.join(secretDir, "secret.txt"), SECRET);
  server = net.createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(root, { recursive: true, force: true });
});

let calls = 0;
function contextFor(executorId: string): ToolContext {
  return {
    runId: "run-1",
    executorId,
    signal: new AbortController().signal,
    idempotencyKey: `intent-${++calls}`,
    blobs,
    workspaceDir: workspaceDirFor(root, "run-1", executorId),
    now: () => new Date("2026-03-01T12:00:00Z"),
  };
}

async function compute(input: unknown, options: ComputeOptions = FAST, ctx = contextFor("child-1")): Promise<{ out: ToolOutput; report: ComputeReport }> {
  const tool = createComputeTools(options)[0] as Tool;
  const parsed = parseToolInput(tool, input);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.message);
  const out = await tool.runSanitized(parsed.value, ctx);
  return { out, report: JSON.parse(out.output) };
}
const python = (code: string, options?: ComputeOptions, ctx?: ToolContext) => compute({ language: "python", code }, options, ctx);
const deno = (code: string, options?: ComputeOptions, ctx?: ToolContext) => compute({ language: "typescript", code }, options, ctx);

test("python runs in the workspace, reads its inputs, and the code, stdout and written files are recorded as artifacts", async () => {
  const csv = new TextEncoder().encode("x,y\n1,2\n3,4\n");
  const sha256 = await blobs.put(csv);
  const ctx = contextFor("child-happy");
  const code = [
    "import csv, json",
    "rows = list(csv.DictReader(open('/inputs/data.csv')))",
    "total = sum(float(r['y']) for r in rows)",
    "open('result.json', 'w').write(json.dumps({'total': total}))",
    "print(json.dumps({'rows': len(rows), 'total': total}))",
  ].join("\n");
  const { out, report } = await compute({ language: "python", code, inputs: [{ sha256, name: "data.csv" }] }, FAST, ctx);
  assert.equal(report.status, "ok", report.stderr);
  assert.equal(report.exit_code, 0);
  assert.deepEqual(JSON.parse(report.stdout), { rows: 2, total: 6 });
  assert.deepEqual(report.limits_hit, []);
  assert.deepEqual(report.inputs, [{ name: "data.csv", path: "/inputs/data.csv", sha256 }]);
  // The record: code, stdout, stderr under .compute/<call>/, each a blob; the written file an artifact.
  const paths = out.artifacts!.map((a) => a.path);
  assert.deepEqual(paths.slice(0, 3), [`${report.record.folder}/main.py`, `${report.record.folder}/stdout.txt`, `${report.record.folder}/stderr.txt`]);
  assert.equal(await blobs.text(report.record.code_sha256), code);
  assert.equal(await blobs.text(report.record.stdout_sha256), report.stdout);
  assert.deepEqual(report.files_written.map((f) => f.path), ["result.json"]);
  assert.deepEqual(JSON.parse(await blobs.text(report.files_written[0]!.sha256)), { total: 6 });
  assert.equal(out.artifacts![3]!.id, report.files_written[0]!.artifact_id);
  // Sources: the input it read and the stdout it printed.
  assert.deepEqual(out.sources!.map((s) => [s.kind, s.url]), [["data", `blob:${sha256}`], ["workspace_file", `workspace:${report.record.folder}/stdout.txt`]]);
  assert.equal(await fs.readFile(path.join(ctx.workspaceDir!, report.record.folder, "main.py"), "utf8"), code);
});

test("python cannot read outside its workspace: /etc/shadow, the repository, /root, another folder of the host", async () => {
  const targets = ["/etc/shadow", "/etc/passwd", path.join(repoRoot, "package.json"), "/root", path.join(secretDir, "secret.txt"), "/work"];
  const code = `
import json, os
result = {}
for p in ${JSON.stringify(targets)}:
    try:
        if os.path.isdir(p):
            result[p] = "listed: " + ",".join(os.listdir(p))
        else:
            result[p] = "read: " + open(p).read(200)
    except Exception as e:
        result[p] = "refused: " + type(e).__name__
print(json.dumps(result))
`;
  const { report } = await python(code);
  assert.equal(report.status, "ok", report.stderr);
  const result = JSON.parse(report.stdout) as Record<string, string>;
  for (const p of targets) assert.match(result[p]!, /^refused: (FileNotFoundError|PermissionError)$/, `${p}: ${result[p]}`);
  assert.doesNotMatch(report.stdout, new RegExp(SECRET));
});

test("python cannot open a socket to a server listening on the host's loopback", async () => {
  const code = `
import socket
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", ${port}))
    print("connected:", s.recv(100))
except OSError as e:
    print("refused:", type(e).__name__, e.errno)
`;
  const { report } = await python(code);
  assert.equal(report.status, "ok", report.stderr);
  assert.match(report.stdout, /^refused: /);
  assert.equal(connections, 0, "the host's server saw no connection");
});

test("python sees an empty environment: a secret in the parent's environment is not visible; passEnv variables are", async () => {
  process.env.ARIADNE_TEST_SECRET = "parent-secret-value";
  try {
    const { report } = await python("import os, json\nprint(json.dumps(dict(os.environ)))", { ...FAST, passEnv: { OPENBLAS_CORETYPE: "Haswell" } });
    const env = JSON.parse(report.stdout) as Record<string, string>;
    assert.equal(env.ARIADNE_TEST_SECRET, undefined);
    assert.doesNotMatch(report.stdout, /parent-secret-value/);
    assert.equal(env.OPENBLAS_CORETYPE, "Haswell");
    assert.equal(env.HOME, "/tmp");
    assert.deepEqual(Object.keys(env).filter((k) => /KEY|TOKEN|SECRET|DATABASE/i.test(k)), []);
  } finally {
    delete process.env.ARIADNE_TEST_SECRET;
  }
});

test("inputs are read-only inside the sandbox", async () => {
  const sha256 = await blobs.put(new TextEncoder().encode("original"));
  const code = "try:\n    open('/inputs/in.txt', 'w').write('changed')\n    print('written')\nexcept OSError as e:\n    print('refused', type(e).__name__)";
  const { report } = await compute({ language: "python", code, inputs: [{ sha256, name: "in.txt" }] });
  assert.match(report.stdout, /^refused (OSError|PermissionError)/);
});

test("a symlink the code plants in the workspace is neither published nor followed by the file tools", async () => {
  const ctx = contextFor("child-links");
  const { report } = await python("import os\nos.symlink('/etc/passwd', 'passwd')\nopen('ok.txt','w').write('fine')", FAST, ctx);
  assert.deepEqual(report.files_written.map((f) => f.path), ["ok.txt"]);
  assert.deepEqual(report.files_not_published.map((f) => f.path), ["passwd"]);
  const readFile = createWorkspaceTools()[0]!;
  await assert.rejects(readFile.run({ path: "passwd" }, ctx), /points outside your workspace/);
});

test("python: the time limit kills the process group and is reported", async () => {
  const started = Date.now();
  const { report } = await python("import subprocess, time\nsubprocess.Popen(['sleep', '60'])\nwhile True:\n    time.sleep(0.01)", { ...FAST, timeLimitMs: 1_500 });
  assert.ok(Date.now() - started < 8_000);
  assert.equal(report.status, "time_limit");
  assert.equal(report.signal, "SIGKILL");
  assert.match(report.limits_hit.join("\n"), /time limit: the run passed 1500 ms and its process group was killed/);
});

test("python: the memory limit is hit and reported", async () => {
  const { report } = await python("x = bytearray(2 * 1024 ** 3)\nprint('allocated')", { ...FAST, memoryLimitMb: 256 });
  assert.equal(report.status, "memory_limit");
  assert.match(report.limits_hit.join("\n"), /memory limit: the run ran out of its 256 MB/);
  assert.doesNotMatch(report.stdout, /allocated/);
});

test("python: the output cap truncates stdout and stderr and says so", async () => {
  const { report } = await python("import sys\nprint('x' * 100000)\nsys.stderr.write('e' * 50000)", { ...FAST, outputCapBytes: 1_000 });
  assert.equal(report.status, "ok");
  assert.equal(report.stdout.length, 1_000);
  assert.equal(report.stdout_bytes, 100_001);
  assert.equal(report.stdout_truncated, true);
  assert.equal(report.stderr_truncated, true);
  assert.match(report.limits_hit.join("\n"), /output cap: stdout had 100001 bytes; only the first 1000 are shown and kept/);
  assert.match(report.limits_hit.join("\n"), /output cap: stderr had 50000 bytes/);
});

test("a failing program is reported as an error with its stderr, not as a result", async () => {
  const { report } = await python("raise SystemExit('bad input: no column value')");
  assert.equal(report.status, "error");
  assert.equal(report.exit_code, 1);
  assert.match(report.stderr, /bad input: no column value/);
});

test("non-execution is reported as such: no bubblewrap, no python, no deno", async () => {
  await assert.rejects(python("print(1)", { ...FAST, bwrapPath: "/nonexistent/bwrap" }), /compute did not run: bubblewrap \(the sandbox\) is not installed at \/nonexistent\/bwrap\. No code was executed/);
  await assert.rejects(python("print(1)", { ...FAST, pythonPath: "/nonexistent/python3" }), /compute did not run: Python is not installed at \/nonexistent\/python3/);
  await assert.rejects(deno("console.log(1)", { ...FAST, denoPath: "/nonexistent/deno" }), /compute did not run: Deno .* is not installed/);
  const bare: ToolContext = { ...contextFor("child-bare"), blobs: undefined };
  await assert.rejects(python("print(1)", FAST, bare), /compute needs the run's blob store/);
});

test("deno: TypeScript runs in the workspace and its written files are published", async () => {
  const { report } = await deno("const n: number = [1, 2, 3].reduce((a, b) => a + b, 0);\nawait Deno.writeTextFile('sum.txt', String(n));\nconsole.log(JSON.stringify({ n }));");
  assert.equal(report.status, "ok", report.stderr);
  assert.deepEqual(JSON.parse(report.stdout), { n: 6 });
  assert.deepEqual(report.files_written.map((f) => f.path), ["sum.txt"]);
  assert.match(report.record.folder, /^\.compute\//);
});

test("deno cannot reach the network, read the environment, or read outside its workspace (not even by a static import)", async () => {
  process.env.ARIADNE_TEST_SECRET = "parent-secret-value";
  try {
    const code = `
const result: Record<string, string> = {};
const attempt = async (name: string, f: () => Promise<unknown> | unknown) => {
  try { result[name] = "allowed: " + String(await f()).slice(0, 100); } catch (e) { result[name] = "refused: " + (e as Error).name; }
};
await attempt("net", () => fetch("http://127.0.0.1:${port}/").then((r) => r.text()));
await attempt("connect", () => Deno.connect({ hostname: "127.0.0.1", port: ${port} }));
await attempt("env", () => Deno.env.get("ARIADNE_TEST_SECRET"));
await attempt("secret", () => Deno.readTextFile(${JSON.stringify(path.join(secretDir, "secret.txt"))}));
await attempt("repo", () => Deno.readTextFile(${JSON.stringify(path.join(repoRoot, "package.json"))}));
await attempt("etc", () => Deno.readTextFile("/etc/passwd"));
await attempt("import", () => import(${JSON.stringify(path.join(repoRoot, "deno.json"))}, { with: { type: "json" } }));
await attempt("run", () => new Deno.Command("/bin/sh", { args: ["-c", "echo hi"] }).output());
console.log(JSON.stringify(result));
`;
    const { report } = await deno(code);
    assert.equal(report.status, "ok", report.stderr);
    const result = JSON.parse(report.stdout) as Record<string, string>;
    for (const [name, outcome] of Object.entries(result)) assert.match(outcome, /^refused: /, `${name}: ${outcome}`);
    assert.equal(Object.keys(result).length, 8);
    assert.equal(connections, 0);
  } finally {
    delete process.env.ARIADNE_TEST_SECRET;
  }
});

test("deno: a static import of a file outside the workspace fails instead of reading it", async () => {
  const { report } = await deno(`import cfg from ${JSON.stringify(path.join(repoRoot, "deno.json"))} with { type: "json" };\nconsole.log(JSON.stringify(cfg));`);
  assert.equal(report.status, "error");
  assert.doesNotMatch(report.stdout, /nodeModulesDir/);
  assert.match(report.stderr, /Module not found|NotFound|No such file/i);
});

test("deno: time, memory and output limits are hit and reported", async () => {
  const slow = await compute({ language: "javascript", code: "while (true) {}" }, { ...FAST, timeLimitMs: 1_500 });
  assert.equal(slow.report.status, "time_limit");
  const hungry = await compute({ language: "javascript", code: "const a = []; while (true) a.push(new Array(1e6).fill(1.5));" }, { ...FAST, memoryLimitMb: 128 });
  assert.equal(hungry.report.status, "memory_limit", hungry.report.stderr);
  assert.match(hungry.report.limits_hit.join("\n"), /memory limit: the run ran out of its 128 MB/);
  const loud = await compute({ language: "javascript", code: "console.log('y'.repeat(50000));" }, { ...FAST, outputCapBytes: 500 });
  assert.equal(loud.report.stdout_truncated, true);
  assert.match(loud.report.limits_hit.join("\n"), /output cap: stdout had 50001 bytes; only the first 500/);
});
