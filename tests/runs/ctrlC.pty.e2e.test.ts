import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { findRun, runStatus, verifyRun } from "../../runs/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { spawn } from "node:child_process";
import { ROOT, ariadne } from "./processes.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";

/** Runs `ariadne run` under the pty driver; resolves with the driver's exit code and everything the terminal showed. */
function runInTerminal(env: Record<string, string>, ctrlCWhen: string): Promise<{ code: number | null; output: string }> {
  const driver = spawn("python3", ["tests/runs/ptyDriver.py", ctrlCWhen, "60", process.execPath, CLI_SCRIPT, "run"], {
    cwd: ROOT,
    // A dumb terminal gets progress as plain lines (no live view), so the driver can wait for one;
    // Ctrl-C under the live view is tests/cli/liveTerminal.test.ts.
    env: { ...process.env, ARIADNE_DEBUG: "", TERM: "dumb", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  driver.stdout.on("data", (d: Buffer) => (output += d.toString()));
  driver.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    driver.on("error", reject);
    driver.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * Ctrl-C typed into a real pseudo-terminal (python3's pty module drives it:
 * tests/runs/ptyDriver.py), not a signal sent by the test: the terminal turns
 * the \x03 byte into SIGINT for `ariadne run`'s process group, as for a person
 * at a shell. The run is marked interrupted, the hint is printed, and
 * `ariadne resume RUN` finishes it.
 */
describe("Ctrl-C in a pseudo-terminal (PostgreSQL, real processes)", () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  before(async () => {
    scratch = await createScratchDatabase(`ariadne_ctrlc_${process.pid}`, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "150", ARIADNE_LEASE_MS: "1500" };
    assert.equal((await ariadne(["migrate"], env)).code, 0);
  });
  after(() => scratch?.drop());

  test("Ctrl-C mid-run: the run is interrupted and says how to resume or cancel; ariadne resume finishes it", async () => {
    // Mid-run: Ctrl-C once a Child has been admitted (the scripted model takes 150 ms a call).
    const { code, output } = await runInTerminal(env, "child:\\S+\\s+admitted");
    assert.equal(code, 0, `the pty driver failed: python3 with its pty module is needed\n${output}`);
    assert.match(output, /\[pty\] ctrl-c=yes exit=130$/m, output);
    // On a terminal the first line is `run ID` (`run: ID` when piped).
    const [, runId] = output.match(/^run ([0-9a-f-]{36})\r?$/m) ?? [];
    assert.ok(runId, output);
    assert.match(output, new RegExp(`interrupting run ${runId}`));
    assert.match(output, new RegExp(`resume it:\\s+ariadne resume ${runId}`));
    assert.match(output, new RegExp(`cancel it:\\s+ariadne cancel ${runId}`));

    const { store, database, close } = await openStore({ url: scratch.url });
    try {
      await verifyRun(store, runId);
      assert.equal((await runStatus(database, store, runId)).state, "interrupted");
      assert.equal((await findRun(database, runId)).leaseOwner, null);

      const resumed = await ariadne(["resume", runId], env);
      assert.equal(resumed.code, 0, resumed.output);
      assert.equal((await runStatus(database, store, runId)).state, "settled");
      assert.equal((await findRun(database, runId)).state, "finished");
    } finally {
      await close();
    }
  });
});
