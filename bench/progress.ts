import { availableParallelism, loadavg } from "node:os";

/** A bench's progress line, marked so it reads apart from the figures it prints. */
export function progress(message: string): void {
  console.log(`· ${message}`);
}

/** `--repeat=N` (default 3): how many rounds a bench takes the median of; anything but a positive integer is refused. */
export function repeatFlag(argv: readonly string[], bench: string): number {
  const given = argv.find((a) => a.startsWith("--repeat="))?.slice(9);
  const repeat = Number(given ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`${bench}: --repeat must be a positive integer, not "${given}"`);
  return repeat;
}

/** The machine as a bench starts: its CPUs and 1-min load average, for the lines that open and close its report. */
export interface BenchMachine {
  cpus: number;
  /** The opening line, flagging a busy machine. */
  atStart: string;
  /** The closing line: the load at start and now, `note` after it, and the caveat when the start was busy. */
  atEnd(note?: string): string;
}

/** Busy: a load average above half the CPUs, where other work will skew the figures. (The readings are parameters for tests.) */
export function readMachine(load = loadavg()[0], cpus = availableParallelism()): BenchMachine {
  const busy = load > cpus / 2;
  return {
    cpus,
    atStart: `machine: ${cpus} CPUs, load average ${load.toFixed(2)}${busy ? " (busy: other processes will skew these numbers)" : ""}`,
    atEnd: (note = "") =>
      `machine: ${cpus} CPUs, 1-min load average ${load.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end${note}${busy ? "; figures are indicative on a loaded machine" : ""}`,
  };
}
