import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, STACK_LINE, ariadne } from "./ariadneProcess.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";

/**
 * Output that cannot be written (issue 33, item 5): stdout on a full device
 * (/dev/full answers every write with ENOSPC) is exit 1 with one line on stderr
 * saying so, not a stack trace and exit 0.
 */
const NO_FULL = existsSync("/dev/full") ? false : "no /dev/full here";

// A recorded run (offline, in a PGlite data dir) for the read commands to print.
let dir = "";
let runId = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "ariadne-stdout-full-"));
  const r = await ariadne(["run", "--json", "--data-dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  runId = JSON.parse(r.stdout).runId;
});
after(() => rm(dir, { recursive: true, force: true }));

const COMMANDS: (() => string[])[] = [
  () => ["--help"],
  () => ["tools", "list"],
  ...["show", "status", "verify", "audit", "report"].map((command) => () => [command, runId, "--data-dir", dir]),
];

for (const argsOf of COMMANDS) {
  // The run id is known only once `before` ran: named RUN here.
  const shown = argsOf();
  const name = shown[1] === "" ? `${shown[0]} RUN` : shown.join(" ");
  test(`ariadne ${name} > /dev/full: exit 1, one line naming the full device`, { skip: NO_FULL, timeout: 120_000 }, async () => {
    const full = openSync("/dev/full", "w");
    try {
      const child = spawn(process.execPath, [CLI_SCRIPT, ...argsOf()], { cwd: ROOT, stdio: ["ignore", full, "pipe"], env: { ...process.env, ARIADNE_DEBUG: "" } });
      let stderr = "";
      child.stderr!.setEncoding("utf8").on("data", (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      assert.equal(code, 1, stderr);
      assert.doesNotMatch(stderr, STACK_LINE);
      const lines = stderr.trim().split("\n");
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0], /^ariadne: cannot write the output: .*ENOSPC/);
    } finally {
      closeSync(full);
    }
  });
}
