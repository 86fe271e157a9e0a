import assert from "node:assert/strict";
import { test } from "node:test";
import { flagsToSet, v8FlagsFor } from "../../cli/v8Flags.mjs";

test("both keep the old generation's growth small; commands also keep the young generation small and compile with Liftoff alone; hosts keep V8's young generation and TurboFan", () => {
  for (const host of ["worker", "serve"]) assert.deepEqual(v8FlagsFor(host), ["--heap-growing-percent=50"]);
  for (const command of ["run", "status", undefined]) assert.deepEqual(v8FlagsFor(command), ["--heap-growing-percent=50", "--semi-space-growth-factor=1", "--liftoff-only"]);
});

test("a flag given to node itself, in either spelling, is not overridden", () => {
  assert.deepEqual(flagsToSet("worker", ["--heap-growing-percent=100"]), []);
  assert.deepEqual(flagsToSet("run", ["--semi_space_growth_factor=2", "--liftoff-only"]), ["--heap-growing-percent=50"]);
  assert.deepEqual(flagsToSet("run", ["--heap-growing-percent=100"]), ["--semi-space-growth-factor=1", "--liftoff-only"]);
  assert.deepEqual(flagsToSet("worker", ["--max-old-space-size=4096"]), v8FlagsFor("worker"));
});
