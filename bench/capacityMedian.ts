import type { CapacityFloor } from "./capacityFloor.ts";
import type { CapacityStep } from "./capacityRun.ts";

/** A size's row: one run of it, with the p99 of every run of the size beside it. */
export interface MedianRow {
  step: CapacityStep;
  floor: CapacityFloor;
  /** The p99 of every run of the size, in the order taken. */
  p99s: number[];
}

/** The run whose p99 is the median of the size's runs (the upper middle one of an even count), so its other figures come from one real run. */
export function medianRun(taken: readonly { step: CapacityStep; floor: CapacityFloor }[]): MedianRow {
  if (taken.length === 0) throw new Error("medianRun: no runs");
  const byP99 = [...taken].sort((a, b) => a.step.overheadMs.p99 - b.step.overheadMs.p99);
  return { ...byP99[Math.floor(byP99.length / 2)], p99s: taken.map((t) => t.step.overheadMs.p99) };
}
