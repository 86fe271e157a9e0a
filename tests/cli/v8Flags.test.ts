import assert from "node:assert/strict";
import { test } from "node:test";
import { flagsToSet, v8FlagsFor } from "../../cli/v8Flags.mjs";

test("hosts keep TurboFan; commands compile with Liftoff alone; both keep the young generation and the old one's growth small", () => {
  for (const host of ["worker", "serve"]) assert.deepEqual(v8FlagsFor(host), ["--semi-space-growth-factor=1", "--heap-growing-percent=50"]);
  for (const command of ["run", "status", undefined]) assert.deepEqual(v8FlagsFor(command), ["--semi-space-growth-factor=1", "--heap-growing-percent=50", "--liftoff-only"]);
});

test("a flag given to node itself, in either spelling, is not overridden", () => {
  assert.deepEqual(flagsToSet("worker", ["--heap-growing-percent=100"]), ["--semi-space-growth-factor=1"]);
  assert.deepEqual(flagsToSet("run", ["--semi_space_growth_factor=2", "--liftoff-only"]), ["--heap-growing-percent=50"]);
  assert.deepEqual(flagsToSet("worker", ["--max-old-space-size=4096"]), v8FlagsFor("worker"));
});
