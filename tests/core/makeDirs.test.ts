import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeDirs } from "../../core/makeDirs.ts";

/**
 * Directories made one level at a time (issue 33, item 5): Node's recursive
 * mkdir loops forever at 100% CPU on a path under /proc (each level answers
 * ENOENT); here each failure is an error naming the directory and the cause.
 */
test("a path under /proc is refused at once, naming the directory that could not be made", { skip: existsSync("/proc/self") ? false : "no /proc here" }, () => {
  assert.throws(() => makeDirs("/proc/x/y"), (e: Error & { code?: string }) => /cannot create the directory \/proc\/x/.test(e.message) && e.code === "ENOENT");
});

test("a path through a file is refused naming the file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ariadne-makedirs-"));
  try {
    makeDirs(join(dir, "a", "b"));
    assert.ok(existsSync(join(dir, "a", "b")));
    makeDirs(join(dir, "a", "b")); // already there: nothing to do
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "file"), "x");
    assert.throws(() => makeDirs(join(dir, "file", "c")), /is not a directory/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a read-only file system is named as such (EROFS), not as a missing directory", () => {
  const erofs = Object.assign(new Error("EROFS: read-only file system, mkdir '/ro/x'"), { code: "EROFS" });
  assert.throws(
    () => makeDirs("/ro/x", { mkdir: () => { throw erofs; }, exists: (p) => p === "/ro" || p === "/" }),
    (e: Error & { code?: string }) => e.code === "EROFS" && /\/ro\/x is on a read-only file system/.test(e.message),
  );
});
