import type { EventStore } from "../events/index.ts";
import type { RunGovernance } from "../governance/index.ts";
import { percentile } from "./overheadProbe.ts";

/**
 * Where a Child turn's overhead goes, watched from outside the runtime (the
 * store and the governance it is given, wrapped): from the settle after a
 * model reply to the end of the turn's append ("append": deciding the turn,
 * waiting for the batch, the statement and its commit, the fold); from there
 * to the next reservation's start ("tools and loop": the read-only tool, the
 * event loop's queue, building the next request); the reservation ("reserve":
 * the Child's own settle still in flight, then the ledger's conditional
 * UPDATE). The three add up to the turn, less the few microseconds from the
 * reply to its settle and from the reservation to the call.
 */
export const PHASES = ["append", "toolsAndLoop", "reserve"] as const;
export type Phase = (typeof PHASES)[number];
export type TurnPhases = Record<Phase, number>;

export interface PhaseReport {
  turns: number;
  /** Mean of each phase over every turn, and over the turns whose sum is at or above the p99 of the sums. */
  all: TurnPhases;
  tail: TurnPhases;
  tailTurns: number;
  p99Ms: number;
}

interface Marks {
  reply: number;
  appended?: number;
  reserving?: number;
}

export function watchPhases(): {
  store(store: EventStore): EventStore;
  governance(governance: RunGovernance): RunGovernance;
  report(): PhaseReport;
} {
  const open = new Map<string, Marks>();
  const turns: TurnPhases[] = [];
  return {
    store: (store) => ({
      ...store,
      async append(streamId, expectedVersion, events) {
        const marks = open.get(events[0]?.metadata.executorId ?? "");
        const result = await store.append(streamId, expectedVersion, events);
        // The first append after a reply is its turn's.
        if (marks && marks.appended === undefined) marks.appended = performance.now();
        return result;
      },
    }),
    governance: (governance) => ({
      ...governance,
      async afterModelCall(state, reservation, usage) {
        if (state.role !== "main" && usage) open.set(state.executorId, { reply: performance.now() });
        return governance.afterModelCall(state, reservation, usage);
      },
      async beforeModelCall(state, plan) {
        const marks = open.get(state.executorId);
        const reserving = performance.now();
        const verdict = await governance.beforeModelCall(state, plan);
        // A refused call is no turn: the overhead figure counts only calls made.
        if (verdict.ok && marks?.appended !== undefined) {
          turns.push({ append: marks.appended - marks.reply, toolsAndLoop: reserving - marks.appended, reserve: performance.now() - reserving });
        }
        open.delete(state.executorId);
        return verdict;
      },
    }),
    report: () => phasesOf(turns),
  };
}

/** The phases' means over every turn and over the slowest (sum at or above the p99 of the sums). */
export function phasesOf(turns: readonly TurnPhases[]): PhaseReport {
  const sum = (t: TurnPhases) => PHASES.reduce((ms, p) => ms + t[p], 0);
  const p99Ms = turns.length ? percentile(turns.map(sum), 99) : Number.NaN;
  const tail = turns.filter((t) => sum(t) >= p99Ms);
  const means = (of: readonly TurnPhases[]) =>
    Object.fromEntries(PHASES.map((p) => [p, of.length ? of.reduce((ms, t) => ms + t[p], 0) / of.length : Number.NaN])) as TurnPhases;
  return { turns: turns.length, all: means(turns), tail: means(tail), tailTurns: tail.length, p99Ms };
}

const LABELS: Record<Phase, string> = { append: "append", toolsAndLoop: "tools and event loop", reserve: "reservation" };

export function describePhases(r: PhaseReport): string {
  const list = (m: TurnPhases) => PHASES.map((p) => `${LABELS[p]} ${m[p].toFixed(1)}`).join(", ");
  return `phases (ms, mean): the ${r.tailTurns} turns at or above p99 (${r.p99Ms.toFixed(1)} ms): ${list(r.tail)}; all ${r.turns} turns: ${list(r.all)}`;
}
