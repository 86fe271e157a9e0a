import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { HOST_STEAL_PCT, between, stealCell, cpuTicks, describeMachine, duringTurns, someStallUs, watchMachine } from "../../bench/capacityMachine.ts";

test("/proc/stat's cpu line: every state summed (guest time is inside user), steal and iowait picked by position", () => {
  const stat = "cpu  100 5 50 800 20 1 4 10 7 0\ncpu0 50 2 25 400 10 0 2 5 0 0\nintr 1\n";
  assert.deepEqual(cpuTicks(stat), { total: 990, steal: 10, iowait: 20 });
  assert.ok(Number.isNaN(cpuTicks("intr 1\n").total), "no cpu line: no figure, not zero");
});

test("a pressure file's `some` total, not its `full` one", () => {
  const pressure = "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=999\n";
  assert.equal(someStallUs(pressure), 123456);
  assert.ok(Number.isNaN(someStallUs("")));
});

test("between two samples: steal and iowait as shares of the CPU ticks, pressure as a share of the wall time", () => {
  const a = { at: 0, total: 1000, steal: 10, iowait: 0, cpuStallUs: 0, ioStallUs: 5_000 };
  const b = { at: 1000, total: 1200, steal: 30, iowait: 10, cpuStallUs: 250_000, ioStallUs: 55_000 };
  assert.deepEqual(between(a, b), { stealPct: 10, iowaitPct: 5, cpuPressurePct: 25, ioPressurePct: 5 });
});

test("the tail's seconds: each slow turn takes the worst second it overlapped, averaged over the turns; a turn outside every second counts for nothing", () => {
  const second = (fromMs: number, cpu: number) => ({ fromMs, toMs: fromMs + 1000, stealPct: cpu / 10, cpuPressurePct: cpu, ioPressurePct: 0 });
  const seconds = [second(0, 10), second(1000, 70), second(2000, 20)];
  // One turn inside the first second, one spanning the second and third (worst: 70), one after every sample.
  const d = duringTurns(seconds, [
    [100, 200],
    [1900, 2100],
    [9000, 9100],
  ]);
  assert.equal(d.cpuPressurePct, 40);
  assert.equal(d.stealPct, 4);
  assert.ok(Number.isNaN(duringTurns(seconds, []).cpuPressurePct), "no slow turns: no figure");
});

test("watched on this machine: shares where /proc has them (NaN, printed n/a, where not), and a line that names each", async () => {
  const watch = watchMachine(20);
  const end = Date.now() + 120;
  while (Date.now() < end); // keep a CPU busy so the sample has ticks in it
  await new Promise((r) => setTimeout(r, 60));
  const now = performance.now();
  const m = watch.stop().report([[now - 150, now]]);
  if (existsSync("/proc/stat")) assert.ok(m.stealPct >= 0 && m.stealPct <= 100, `steal ${m.stealPct}`);
  else assert.ok(Number.isNaN(m.stealPct));
  if (existsSync("/proc/pressure/cpu")) assert.ok(m.cpuPressurePct >= 0 && Number.isFinite(m.tailSeconds.cpuPressurePct));
  assert.match(describeMachine(m), /over the step steal ([\d.]+%|n\/a).*its worst second steal.*the seconds of the turns at or above p99 steal/);
});

test("a p99 whose slowest turns ran while the hypervisor took a tenth of the CPU or more is called the host's; below that it is not", () => {
  const pressure = (stealPct: number) => ({ stealPct, cpuPressurePct: 20, ioPressurePct: 1 });
  const report = (tailSteal: number) => ({ ...pressure(2), iowaitPct: 0.5, worstSecond: pressure(55), tailSeconds: pressure(tailSteal) });
  assert.match(describeMachine(report(47.3)), /the hypervisor took 47\.3% of the CPU in the slowest turns' seconds \(2\.0% over the step\): this p99 measures the host/);
  assert.match(describeMachine(report(HOST_STEAL_PCT)), /measures the host/);
  assert.doesNotMatch(describeMachine(report(HOST_STEAL_PCT - 0.1)), /measures the host/);
  assert.doesNotMatch(describeMachine(report(Number.NaN)), /measures the host/, "no figure (no /proc): no verdict");
});

test("the table's steal cell: the worst process's step and tail figures; n/a where no process had one", () => {
  const m = (step: number, tail: number) => ({ stealPct: step, iowaitPct: 0, cpuPressurePct: 0, ioPressurePct: 0, worstSecond: { stealPct: 0, cpuPressurePct: 0, ioPressurePct: 0 }, tailSeconds: { stealPct: tail, cpuPressurePct: 0, ioPressurePct: 0 } });
  assert.equal(stealCell([m(13.6, 50), m(12.3, 47.3)]), "13.6 / 50.0");
  assert.equal(stealCell([m(Number.NaN, Number.NaN)]), "n/a / n/a");
});
