import { after, describe as describeEverywhere, test } from "node:test";
import { dealt } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE } from "../../db/lockDataDir.ts";
import { type CliResult, ROOT, STACK_LINE, ariadne, lines, outputOf } from "./ariadneProcess.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";

// Issue 17, defect 7: an embedded store directory that cannot be used fails at once, in one line naming it and the real cause.
const dir = await mkdtemp(join(tmpdir(), "ariadne-datadir-"));
after(() => rm(dir, { recursive: true, force: true }));

function assertOneLine(result: CliResult, pattern: RegExp) {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(lines(result.stderr).length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, STACK_LINE);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The two suites are dealt between the Node lines of `npm test` (tests/support/testShare.ts).
const describe = dealt(describeEverywhere);

describe("an embedded store directory that cannot be made", () => {
  // It used to spin at 100% CPU: a spin now runs into the spawn's timeout, is killed and fails the exit code check.
  test("--data-dir /proc/1/nope fails at once (no spin), one line naming the path", async () => {
    // migrate creates a store; a read command never does (tests/cli/readCommandsCreateNothing.test.ts).
    const r = await ariadne(["migrate", "--data-dir", "/proc/1/nope"]);
    assertOneLine(r, /^ariadne: cannot open the embedded store at \/proc\/1\/nope: .*\((ENOENT|EACCES|EPERM|EROFS)\)$/m);
  });

  // A read-only file system needs a mount; as root the command runs in a mount namespace of its own with the directory bound read-only.
  const unshare = spawnSync("unshare", ["-m", "true"]).status === 0 && process.getuid?.() === 0;
  test("a read-only file system is reported as EROFS, for the directory itself and for a missing one below it", { skip: unshare ? false : "needs root and unshare -m to mount a read-only directory" }, async () => {
    const ro = join(dir, "ro");
    const made = await ariadne(["migrate", "--data-dir", join(ro, "data")]);
    assert.equal(made.code, 0, made.stderr);
    for (const target of [join(ro, "data"), join(ro, "missing"), join(ro, "missing", "deeper")]) {
      // The store there is read by status; the missing ones would be created by migrate (a read command creates none).
      const r = await readOnly(ro, target === join(ro, "data") ? ["status", "some-run", "--data-dir", target] : ["migrate", "--data-dir", target]);
      assertOneLine(r, new RegExp(`^ariadne: cannot open the embedded store at ${escape(target)}: .*read-only file system \\(EROFS\\)$`, "m"));
    }
  });
});

describe("the lock file of an embedded store", () => {
  test("a lock holding the pid of a live process that is not an Ariadne store holder does not block the store", async () => {
    const data = join(dir, "lock-unrelated");
    assert.equal((await ariadne(["migrate", "--data-dir", data])).code, 0);
    const sleeper = spawn("sleep", ["60"]);
    after(() => sleeper.kill("SIGKILL"));
    for (const holder of [`${sleeper.pid}\n`, "1\n"]) {
      await writeFile(join(data, LOCK_FILE), holder);
      const r = await ariadne(["migrate", "--data-dir", data]);
      assert.equal(r.code, 0, `lock ${holder.trim()}: ${r.stderr}`);
    }
  });
});

/** The CLI with `bound` mounted read-only in a mount namespace of its own. */
function readOnly(bound: string, args: string[]): Promise<CliResult> {
  const script = `mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"`;
  const env = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY"]) delete env[key];
  return outputOf(spawn("unshare", ["-m", "--propagation", "private", "sh", "-c", script, bound, process.execPath, CLI_SCRIPT, ...args], { cwd: ROOT, env, timeout: 60_000 }));
}
