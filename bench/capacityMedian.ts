import type { CapacityFloor } from "./capacityFloor.ts";
import type { CapacityStep } from "./capacityRun.ts";

/** A size's row: one run of it, with the p99 of every run of the size beside it. */
export interface MedianRow {
  step: CapacityStep;
  floor: CapacityFloor;
  /** The p99 of every run of the size, in the order taken. */
  p99s: number[];
}

/** The run whose p99 is the median of the runs (the upper middle one of an even count), so its other figures come from one real run. */
export function middleByP99<T>(taken: readonly T[], p99Of: (run: T) => number): T {
  if (taken.length === 0) throw new Error("medianRun: no runs");
  return [...taken].sort((a, b) => p99Of(a) - p99Of(b))[Math.floor(taken.length / 2)]!;
}

/** One worker's size row: its median run by p99, with every run's p99 beside it. */
export function medianRun(taken: readonly { step: CapacityStep; floor: CapacityFloor }[]): MedianRow {
  return { ...middleByP99(taken, (t) => t.step.overheadMs.p99), p99s: taken.map((t) => t.step.overheadMs.p99) };
}
