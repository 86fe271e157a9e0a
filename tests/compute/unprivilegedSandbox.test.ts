import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { COMPUTE_DEFAULTS } from "../../tools/compute/computeOptions.ts";
import { sandboxArgs } from "../../tools/compute/sandboxArgs.ts";
import { outputOf } from "../cli/ariadneProcess.ts";

// A host that is not root takes the sandbox's other path: no uid of the run's own, bwrap in a user namespace
// (tools/compute/sandboxUid.ts). The other tests run as CI runs them, as root; here the argv the product builds
// for a host that is not root is run by such a user: `nobody`, through setpriv, when this process is root
// (everything the argv names is under /usr or in this test's folder under the temp dir, so nobody reaches it),
// else this process's own user. The same program run by the same user outside the sandbox shows each check can fail.
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const user = asRoot ? NOBODY : process.getuid!();
const asUser = (argv: string[]) => (asRoot ? ["/usr/bin/setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...argv] : argv);

const LIMITS = { memoryLimitMb: 256, maxProcesses: 16 };
let root = "";
let server: net.Server;
let port = 0;
let connections = 0;

before(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-unprivileged-"));
  for (const dir of ["workspace", "inputs", "outside"]) await fs.mkdir(path.join(root, dir));
  await fs.writeFile(path.join(root, "inputs", "data.csv"), "x\n1\n2\n");
  // Readable by anyone on the host: only the sandbox's mounts keep it out.
  await fs.writeFile(path.join(root, "outside", "secret.txt"), "hunter2", { mode: 0o644 });
  await fs.chmod(root, 0o755);
  if (asRoot) await fs.chown(path.join(root, "workspace"), NOBODY, NOBODY);
  server = net.createServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(root, { recursive: true, force: true });
});

/** What it saw: its uid, its inputs, numpy, the host's loopback, a file outside, what it could allocate and fork. */
const program = (secret: string, inputs: string, workspace: string) => `
import json, os, socket, time
out = {"uid": os.getuid(), "inputs": open(${JSON.stringify(inputs)}).read()}
import numpy
out["numpy"] = int(numpy.arange(5).sum())
try:
    socket.create_connection(("127.0.0.1", ${port}), 2).close()
    out["net"] = "open"
except OSError as e:
    out["net"] = type(e).__name__
out["secret"] = os.path.exists(${JSON.stringify(secret)})
open(${JSON.stringify(workspace)} + "/written.txt", "w").write("x")
try:
    block = bytearray(600 * 1024 * 1024)
    out["alloc"] = "ok"
    del block
except MemoryError:
    out["alloc"] = "MemoryError"
forks = 0
try:
    while forks < 40:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        forks += 1
except OSError:
    pass
out["forks"] = forks
print(json.dumps(out))
`;

async function run(argv: string[]) {
  const [file, ...rest] = asUser(argv);
  const result = await outputOf(spawn(file!, rest, { env: {}, timeout: 60_000 }));
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { uid: number; inputs: string; numpy: number; net: string; secret: boolean; alloc: string; forks: number };
}

test("the sandbox as a host that is not root runs it: a user namespace, no network, nothing of the host's files, its limits held", async () => {
  const secret = path.join(root, "outside", "secret.txt");
  const code = program(secret, "/inputs/data.csv", "/workspace");
  await fs.writeFile(path.join(root, "workspace", "main.py"), code, { mode: 0o644 });
  const argv = sandboxArgs("python", {
    ...COMPUTE_DEFAULTS,
    ...LIMITS,
    denoPath: null,
    workspace: path.join(root, "workspace"),
    inputs: path.join(root, "inputs"),
    programPath: "main.py",
    passEnv: {},
    maxFileBytes: 16 * 1024 * 1024,
    tmpBytes: 16 * 1024 * 1024,
    uid: null,
  });
  assert.ok(argv.includes("--unshare-all"), "the path of a host that is not root: bwrap unshares the user namespace too");
  const inside = await run(argv);
  assert.deepEqual(
    { ...inside, forks: inside.forks < LIMITS.maxProcesses },
    { uid: user, inputs: "x\n1\n2\n", numpy: 10, net: "ConnectionRefusedError", secret: false, alloc: "MemoryError", forks: true },
  );
  assert.ok(inside.forks >= 1, "forks up to the limit were allowed");
  assert.equal(connections, 0, "nothing reached the host's loopback");
  assert.equal(await fs.readFile(path.join(root, "workspace", "written.txt"), "utf8"), "x", "the workspace is written through");

  // The same program, the same user, no sandbox: every check above would have failed.
  const outside = await run([COMPUTE_DEFAULTS.pythonPath, "-c", program(secret, path.join(root, "inputs", "data.csv"), path.join(root, "workspace"))]);
  assert.deepEqual([outside.net, outside.secret, outside.alloc, outside.forks], ["open", true, "ok", 40]);
  assert.equal(connections, 1);
});
