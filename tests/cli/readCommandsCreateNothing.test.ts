import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STACK_LINE, ariadne } from "./ariadneProcess.ts";

/**
 * A command that only reads (issue 33, item 5) never creates or migrates a
 * store: on a data directory that holds none it says so in one line, exit 1,
 * and the directory is still not there afterwards.
 */
for (const args of [["status", "x"], ["show", "x"], ["verify", "x"], ["report", "x"], ["audit", "x"]]) {
  test(`ariadne ${args.join(" ")} on a missing data directory creates nothing and says there is no store`, { timeout: 60_000 }, async () => {
    const parent = await mkdtemp(join(tmpdir(), "ariadne-readonly-"));
    const dir = join(parent, "missing");
    try {
      const { code, stderr } = await ariadne([...args, "--data-dir", dir]);
      assert.equal(code, 1, stderr);
      assert.doesNotMatch(stderr, STACK_LINE);
      assert.equal(stderr.trim().split("\n").length, 1, stderr);
      assert.match(stderr, new RegExp(`^ariadne: no store at ${dir}`));
      assert.equal(existsSync(dir), false, "the data directory was created");
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
}
