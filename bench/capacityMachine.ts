import { readFileSync } from "node:fs";

/**
 * What the machine did to everything on it over a capacity step, read from
 * Linux's /proc: the CPU time the hypervisor gave to other guests (steal), the
 * CPUs idle waiting on I/O, and the pressure stall figures (the share of the
 * wall time in which some runnable task waited for a CPU, or some task for
 * I/O). Sampled once a second, so a step's worst second shows beside its
 * totals: one slow moment lands on every turn in flight, and these say whether
 * the moment was the machine's. NaN where /proc cannot tell (not Linux, no PSI).
 */
export interface MachineReport {
  /** Share of all CPU time (percent) over the step. */
  stealPct: number;
  iowaitPct: number;
  /** Share of the wall time (percent) with some task stalled, over the step. */
  cpuPressurePct: number;
  ioPressurePct: number;
  /** The same, in the step's worst one-second sample. */
  worstSecond: Pressure;
  /** The same, averaged over the seconds the slowest turns (at or above p99) ran in: above the step's figures, the tail came with the machine's slow moments. */
  tailSeconds: Pressure;
}

interface Pressure {
  stealPct: number;
  cpuPressurePct: number;
  ioPressurePct: number;
}

/** One sampling interval's figures, with when it was (performance.now() of this process). */
interface Second extends Pressure {
  fromMs: number;
  toMs: number;
}

interface Sample {
  at: number;
  /** Ticks since boot: every CPU state summed, steal, iowait. */
  total: number;
  steal: number;
  iowait: number;
  /** Microseconds since boot with some task stalled. */
  cpuStallUs: number;
  ioStallUs: number;
}

/** Parses /proc/stat's first line ("cpu user nice system idle iowait irq softirq steal ..."). */
export function cpuTicks(stat: string): { total: number; steal: number; iowait: number } {
  const line = stat.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) return { total: Number.NaN, steal: Number.NaN, iowait: Number.NaN };
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total, steal: n[7] ?? Number.NaN, iowait: n[4] ?? Number.NaN };
}

/** Parses a /proc/pressure file's "some ... total=<us>" line. */
export function someStallUs(pressure: string): number {
  const m = /^some .*total=(\d+)/m.exec(pressure);
  return m ? Number(m[1]) : Number.NaN;
}

const read = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

function sample(): Sample {
  return {
    at: performance.now(),
    ...cpuTicks(read("/proc/stat")),
    cpuStallUs: someStallUs(read("/proc/pressure/cpu")),
    ioStallUs: someStallUs(read("/proc/pressure/io")),
  };
}

/** The figures between two samples. */
export function between(a: Sample, b: Sample): Pressure & { iowaitPct: number } {
  const ticks = b.total - a.total;
  const wallUs = (b.at - a.at) * 1000;
  return {
    stealPct: (100 * (b.steal - a.steal)) / ticks,
    iowaitPct: (100 * (b.iowait - a.iowait)) / ticks,
    cpuPressurePct: (100 * (b.cpuStallUs - a.cpuStallUs)) / wallUs,
    ioPressurePct: (100 * (b.ioStallUs - a.ioStallUs)) / wallUs,
  };
}

/** Starts sampling; `stop()` ends it, and its `report` takes the slowest turns as [start, end] in performance.now() time. */
export function watchMachine(everyMs = 1000): { stop(): { report(tailTurns: readonly (readonly [number, number])[]): MachineReport } } {
  const samples = [sample()];
  const timer = setInterval(() => samples.push(sample()), everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      samples.push(sample());
      const seconds: Second[] = samples.slice(1).map((s, i) => ({ ...between(samples[i], s), fromMs: samples[i].at, toMs: s.at }));
      const whole = between(samples[0], samples.at(-1)!);
      return { report: (tailTurns) => ({ ...whole, worstSecond: worstOf(seconds), tailSeconds: duringTurns(seconds, tailTurns) }) };
    },
  };
}

const FIGURES = ["stealPct", "cpuPressurePct", "ioPressurePct"] as const;

function worstOf(seconds: readonly Second[]): Pressure {
  const worst = (k: (typeof FIGURES)[number]) => Math.max(...seconds.map((s) => s[k]).filter(Number.isFinite));
  return { stealPct: worst("stealPct"), cpuPressurePct: worst("cpuPressurePct"), ioPressurePct: worst("ioPressurePct") };
}

/** Each figure averaged over the turns, a turn's being the worst of the seconds it overlapped. */
export function duringTurns(seconds: readonly Second[], turns: readonly (readonly [number, number])[]): Pressure {
  const mean = (k: (typeof FIGURES)[number]) => {
    const perTurn = turns
      .map(([from, to]) => Math.max(...seconds.filter((s) => s.fromMs < to && s.toMs > from).map((s) => s[k]).filter(Number.isFinite)))
      .filter(Number.isFinite);
    return perTurn.length ? perTurn.reduce((a, b) => a + b, 0) / perTurn.length : Number.NaN;
  };
  return { stealPct: mean("stealPct"), cpuPressurePct: mean("cpuPressurePct"), ioPressurePct: mean("ioPressurePct") };
}

const pct = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)}%` : "n/a");

/**
 * Steal (percent) in the slowest turns' seconds from which a p99 is read as the
 * host's: a tenth of the CPU taken lands on every turn in flight then.
 */
export const HOST_STEAL_PCT = 10;

export function describeMachine(m: MachineReport): string {
  const trio = (p: Pressure) => `steal ${pct(p.stealPct)}, CPU pressure ${pct(p.cpuPressurePct)}, I/O pressure ${pct(p.ioPressurePct)}`;
  const host =
    m.tailSeconds.stealPct >= HOST_STEAL_PCT
      ? `; the hypervisor took ${pct(m.tailSeconds.stealPct)} of the CPU in the slowest turns' seconds (${pct(m.stealPct)} over the step): this p99 measures the host as much as the runtime, repeat it on a quieter machine`
      : "";
  return (
    `machine (steal: CPU time given to other guests; pressure: share of the time some task waited for a CPU, or for I/O): ` +
    `over the step ${trio(m)}, iowait ${pct(m.iowaitPct)}; its worst second ${trio(m.worstSecond)}; the seconds of the turns at or above p99 ${trio(m.tailSeconds)}${host}`
  );
}

/** A table cell: steal over the step / in the slowest turns' seconds, the worst of several processes' views. */
export function stealCell(reports: readonly MachineReport[]): string {
  const worst = (pick: (m: MachineReport) => number) => Math.max(...reports.map(pick).filter(Number.isFinite));
  const cell = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "n/a");
  return `${cell(worst((m) => m.stealPct))} / ${cell(worst((m) => m.tailSeconds.stealPct))}`;
}
