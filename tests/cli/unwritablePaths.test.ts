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
