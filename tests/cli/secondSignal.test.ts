import { after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, ariadne } from "./ariadneProcess.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";
import { sharedTest } from "../support/testShare.ts";

// A run and a worker signalled twice, each in a process of its own: dealt between the Node lines of `npm test`.
const test = sharedTest(1);

// Issue 17, defect 7: a second signal means "exit at once", which is exit code 130 (as the README documents),
// also once the command has stopped its work and is only waiting to exit; never death by the signal (143).
const dir = await mkdtemp(join(tmpdir(), "ariadne-signal-"));
after(() => rm(dir, { recursive: true, force: true }));

/** Starts the CLI; resolves each time a line matching `until` appears on stdout or stderr. */
function start(args: string[], env: Record<string, string>) {
  const base = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY"]) delete base[key];
  const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: ROOT, env: { ...base, ...env } });
  after(() => child.kill("SIGKILL"));
  let output = "";
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const onData = (d: string) => {
    output += d;
    for (const w of [...waiters]) if (w.re.test(output)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    output: () => output,
    seen: (re: RegExp) => new Promise<void>((resolve) => (re.test(output) ? resolve() : waiters.push({ re, resolve }))),
  };
}

test("a second SIGTERM after the worker stopped exits 130 (or finds it gone), never by the signal", { timeout: 240_000 }, async () => {
  const data = join(dir, "worker");
  const submitted = await ariadne(["submit", "--offline", "--data-dir", data]);
  assert.equal(submitted.code, 0, submitted.stderr);
  // Scripted replies take 20 s: the worker is still waiting on one after it stopped.
  const worker = start(["worker", "--data-dir", data], { ARIADNE_SCRIPTED_LATENCY_MS: "20000" });
  await worker.seen(/run .*\n[\s\S]*(main|child)/);
  worker.child.kill("SIGTERM");
  await worker.seen(/stopped after \d+ run/);
  // A released run's model call is aborted, so the worker may be gone before the second signal lands (exit 0);
  // while it is still closing, the signal exits it at once (130). Never death by the signal (143).
  worker.child.kill("SIGTERM");
  const exited = await worker.exited;
  assert.equal(exited.signal, null, worker.output());
  assert.ok(exited.code === 130 || exited.code === 0, `exit ${exited.code}\n${worker.output()}`);
});

test("a second SIGTERM after `ariadne run` was interrupted exits 130", { timeout: 240_000 }, async () => {
  const run = start(["run", "--data-dir", join(dir, "run")], { ARIADNE_SCRIPTED_LATENCY_MS: "20000" });
  await run.seen(/main +admitted/);
  run.child.kill("SIGTERM");
  await run.seen(/cancel it: {2}ariadne cancel/);
  assert.equal(run.child.exitCode, null, "still exiting when the second signal comes");
  run.child.kill("SIGTERM");
  assert.deepEqual(await run.exited, { code: 130, signal: null }, run.output());
});
