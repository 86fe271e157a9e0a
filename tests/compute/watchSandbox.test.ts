import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { bytesUnder, watchSandbox } from "../../tools/compute/watchSandbox.ts";

/**
 * The watch over a sandbox's memory and workspace, which 47fc398 added: under load its looks queued behind the
 * workspace walk (one look in a whole pc-measures compute, a look taking 44 s, the result held up to 60 s after
 * the program ended while the queue drained over a pid already reaped; 0ba3a37 made a look wait for the last).
 * The test process stands in for a sandbox's root: its RSS is far past a 1-byte limit.
 */
let workspace: string;
before(async () => {
  workspace = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-watch-test-"));
  // Enough files that a walk of them takes many intervals.
  for (let d = 0; d < 20; d++) {
    await fs.mkdir(path.join(workspace, `d${d}`));
    await Promise.all(Array.from({ length: 50 }, (_, f) => fs.writeFile(path.join(workspace, `d${d}`, `f${f}`), "x")));
  }
});
after(() => fs.rm(workspace, { recursive: true, force: true }));

const limits = (memoryBytes: number) => ({ memoryBytes, workspace, workspaceBytes: 1024 ** 3, workspaceBase: 0, workspaceEntries: 1_000_000, workspaceEntriesBase: 0, tmpEntries: 10 }); // the stand-in's /tmp is the host's: walked no further
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a root no longer the run's (reaped: its pid may be another process's now) is neither measured nor stopped", async () => {
  let stops = 0;
  const live = watchSandbox(process.pid, limits(1), () => stops++, { intervalMs: 5, memoryIntervalMs: 5, alive: () => true });
  await sleep(50);
  const seen = await live.done();
  assert.deepEqual([seen.stoppedBy, stops], ["memory", 1], "the run's own tree past its limit is stopped, once");

  let stray = 0;
  const reaped = watchSandbox(process.pid, limits(1), () => stray++, { intervalMs: 5, memoryIntervalMs: 5, alive: () => false });
  await sleep(50);
  const report = await reaped.done();
  assert.deepEqual([report.stoppedBy, stray, report.peakRssBytes, report.peakProcesses], [null, 0, 0, 0]);
});

test("done() waits for no queue of looks behind a slow workspace walk", async () => {
  let walkMs = performance.now();
  await bytesUnder(workspace);
  walkMs = performance.now() - walkMs;
  const watch = watchSandbox(process.pid, limits(1024 ** 4), () => {}, { intervalMs: 5, memoryIntervalMs: 5, alive: () => true });
  await sleep(600);
  const started = performance.now();
  const report = await watch.done();
  const waited = performance.now() - started;
  // A walk's time, before and after, under whatever load the machine has now.
  const again = performance.now();
  await bytesUnder(workspace);
  walkMs = Math.max(walkMs, performance.now() - again);
  // At most the walk in flight and the last one: no backlog of looks drains after the run (chained, the ticks of
  // those 600 ms drained one walk each: 6 s and more here).
  assert.ok(waited < 4 * walkMs + 500, `done() took ${Math.round(waited)} ms, a walk ${Math.round(walkMs)} ms`);
  assert.ok(report.peakRssBytes > 0 && report.peakProcesses >= 1);
});
