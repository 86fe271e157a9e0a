import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { ROOT, STACK_LINE } from "./ariadneProcess.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";

/**
 * Output that cannot be written (issue 33, item 5): stdout on a full device
 * (/dev/full answers every write with ENOSPC) is exit 1 with one line on stderr
 * saying so, not a stack trace and exit 0.
 */
for (const args of [["--help"], ["tools", "list"]]) {
  test(`ariadne ${args.join(" ")} > /dev/full: exit 1, one line naming the full device`, { skip: existsSync("/dev/full") ? false : "no /dev/full here" }, async () => {
    const full = openSync("/dev/full", "w");
    try {
      const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: ROOT, stdio: ["ignore", full, "pipe"], env: { ...process.env, ARIADNE_DEBUG: "" } });
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
