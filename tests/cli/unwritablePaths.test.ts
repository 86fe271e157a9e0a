import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { STACK_LINE, ariadne } from "./ariadneProcess.ts";

/** `keys signing create --out /proc/x` spun at 100% CPU forever (issue 33, item 5): now one line, exit 1. */
test("keys signing create --out a path under /proc: exit 1 at once, one line naming the directory", { skip: existsSync("/proc/self") ? false : "no /proc here", timeout: 60_000 }, async () => {
  const { code, stderr } = await ariadne(["keys", "signing", "create", "--out", "/proc/x"]);
  assert.equal(code, 1, stderr);
  assert.doesNotMatch(stderr, STACK_LINE);
  assert.equal(stderr.trim().split("\n").length, 1, stderr);
  assert.match(stderr, /^ariadne: cannot create the directory \/proc\/x/);
});

/** A signing key that is not one was found only after the run was recorded, leaving it running (issue 33, item 5). */
test("ARIADNE_SIGNING_KEY that is not a key: run refuses before recording anything", { timeout: 60_000 }, async () => {
  const { mkdtemp, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const parent = await mkdtemp(join(tmpdir(), "ariadne-badkey-"));
  const dir = join(parent, "data");
  try {
    const { code, stderr } = await ariadne(["run", "--data-dir", dir], { ARIADNE_SIGNING_KEY: "/etc/passwd" });
    assert.notEqual(code, 0, stderr);
    assert.doesNotMatch(stderr, STACK_LINE);
    assert.match(stderr, /ARIADNE_SIGNING_KEY/);
    assert.equal(existsSync(dir), false, "no store was opened, so no run was recorded");
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
