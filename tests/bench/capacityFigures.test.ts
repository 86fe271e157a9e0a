import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapacityFloor } from "../../bench/capacityFloor.ts";
import { latencyOptions } from "../../bench/capacityLatency.ts";
import { medianRun } from "../../bench/capacityMedian.ts";
import type { CapacityStep } from "../../bench/capacityRun.ts";
import { describeTail, tailOf } from "../../bench/capacityTail.ts";
import { workersOptions } from "../../bench/capacityWorkers.ts";

const turn = (ms: number, atMs: number) => ({ ms, atMs });
const noLoop = { p99: 0, max: 0 };

test("a tail turn is charged only the part of each pause inside its span", () => {
  // Turns at or above p99 = 50: [100, 160] and [300, 350]; a short turn inside a pause is not in the tail.
  const turns = [turn(60, 160), turn(50, 350), turn(5, 205)];
  const pauses = [
    { startMs: 90, durationMs: 20, kind: "scavenge" }, // 10 ms inside the first turn
    { startMs: 150, durationMs: 30, kind: "full" }, // 10 ms inside the first turn
    { startMs: 200, durationMs: 10, kind: "scavenge" }, // inside no tail turn
  ];
  const t = tailOf(turns, 50, pauses, null, noLoop);
  assert.equal(t.tailTurns, 2);
  assert.equal(t.tailInGc, 1);
  assert.equal(t.tailMs, 55);
  assert.equal(t.tailGcMs, 10); // (20 + 0) / 2
  assert.deepEqual(t.byKind, { scavenge: { count: 2, totalMs: 30, longestMs: 20 }, full: { count: 1, totalMs: 30, longestMs: 30 } });
  assert.match(describeTail(t), /1 of the 2 turns at or above p99 overlapped a collection; such a turn took 55\.0 ms, 10\.0 ms of it in collection pauses/);
});

test("the bench's own forced collection is no worker's pause", () => {
  const pauses = [
    { startMs: 100, durationMs: 80, kind: "full" },
    { startMs: 400, durationMs: 5, kind: "scavenge" },
  ];
  const t = tailOf([turn(60, 170), turn(60, 430)], 50, pauses, { fromMs: 99, toMs: 181 }, noLoop);
  assert.deepEqual(Object.keys(t.byKind), ["scavenge"]);
  assert.equal(t.tailInGc, 1);
  assert.equal(t.tailGcMs, 2.5);
});

test("a size's row is the run with the median p99, every run's p99 kept in order", () => {
  const run = (p99: number, wallMs: number) => ({ step: { overheadMs: { p50: 1, p99, samples: 10 }, wallMs } as CapacityStep, floor: {} as CapacityFloor });
  const row = medianRun([run(96.9, 1), run(41.2, 2), run(61.3, 3)]);
  assert.equal(row.step.wallMs, 3);
  assert.deepEqual(row.p99s, [96.9, 41.2, 61.3]);
  assert.equal(medianRun([run(10, 1), run(30, 2)]).step.wallMs, 2);
  assert.throws(() => medianRun([]), /no runs/);
});

test("two workers against one are measured --repeat times (3 unless told), like one worker's sizes", () => {
  const options = (...argv: string[]) => workersOptions(argv, latencyOptions(argv));
  assert.equal(options("--runs=200")?.repeat, undefined, "no --workers: the one-worker bench");
  assert.deepEqual([options("--workers=2")?.repeat, options("--workers=2")?.runs], [3, [100, 200]]);
  assert.deepEqual([options("--workers=2", "--runs=200,300", "--repeat=1")?.repeat, options("--workers=2", "--runs=200,300")?.runs], [1, [200, 300]]);
  assert.throws(() => options("--workers=2", "--repeat=0"), /--repeat must be a positive integer, not "0"/);
  assert.throws(() => options("--workers=1"), /--workers must be an integer >= 2/);
});

test("--node-flag starts each worker process with a flag of node's own (repeatable, none unless given); a value that is not a flag is refused", () => {
  const options = (...argv: string[]) => workersOptions(argv, latencyOptions(argv));
  assert.deepEqual(options("--workers=2")?.nodeFlags, []);
  assert.deepEqual(options("--workers=2", "--node-flag=--single-threaded-gc", "--node-flag=--v8-pool-size=1")?.nodeFlags, ["--single-threaded-gc", "--v8-pool-size=1"]);
  assert.deepEqual(options("--workers=2", "--node-flag=--single-threaded-gc")?.passOn, [], "not passed on to the worker script as its own argument");
  assert.throws(() => options("--workers=2", "--node-flag=single-threaded-gc"), /--node-flag takes one of node's flags, starting with --, not "single-threaded-gc"/);
  assert.throws(() => options("--node-flag=--single-threaded-gc"), /--node-flag starts worker processes, so it needs --workers=K/, "without --workers it would be ignored");
});
