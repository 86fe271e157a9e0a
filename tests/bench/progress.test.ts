import assert from "node:assert/strict";
import { test } from "node:test";
import { readMachine, repeatFlag } from "../../bench/progress.ts";

test("a bench's machine lines: busy above half the CPUs, and the closing line's caveat exactly when the start was busy", () => {
  const quiet = readMachine(0.9, 2);
  assert.equal(quiet.atStart, "machine: 2 CPUs, load average 0.90");
  assert.match(quiet.atEnd(" (the bench itself adds about 1)"), /^machine: 2 CPUs, 1-min load average 0\.90 at start, \d+\.\d\d at the end \(the bench itself adds about 1\)$/);

  const busy = readMachine(1.5, 2);
  assert.equal(busy.atStart, "machine: 2 CPUs, load average 1.50 (busy: other processes will skew these numbers)");
  assert.match(busy.atEnd(), /at the end; figures are indicative on a loaded machine$/);
  assert.ok(!readMachine(1, 2).atStart.includes("busy"), "exactly half is not busy");
});

test("--repeat: 3 unless given, and anything but a positive integer refused by name", () => {
  assert.equal(repeatFlag([], "peers"), 3);
  assert.equal(repeatFlag(["--repeat=5"], "peers"), 5);
  for (const bad of ["0", "-1", "2.5", "x", ""]) assert.throws(() => repeatFlag([`--repeat=${bad}`], "peers"), /peers: --repeat must be a positive integer/);
});
