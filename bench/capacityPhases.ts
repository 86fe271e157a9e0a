import type { EventStore } from "../events/index.ts";
import type { RunGovernance } from "../governance/index.ts";
import { percentile } from "./overheadProbe.ts";

/**
 * Where a Child turn's overhead goes, watched from outside the runtime (the
 * store and the governance it is given, wrapped). Four moments a turn: the
 * settle after the model's reply (R), the reservation for the next call
 * starting (S) and ending (E), and the turn's append committed (A: its first
 * append after the reply). The next call starts at the later of E and A (A
 * comes before S while a turn is committed before its calls: then the commit
 * wait is 0 and the phases still add up to the turn). The
 * turn splits into "to the reservation" (S - R: deciding the turn, its append
 * when that is waited for, the tools, the event loop, building the request),
 * "reservation" (E - S: the Child's own settle if still in flight, then the
 * ledger's UPDATE) and "commit wait" (the append still running once the
 * reservation is made); "append" (A - R) is printed beside them, not added.
 */
export const PHASES = ["toReservation", "reserve", "commitWait"] as const;
export type Phase = (typeof PHASES)[number];
export type TurnPhases = Record<Phase | "append", number>;

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
  reserved?: number;
}

export function watchPhases(): {
  store(store: EventStore): EventStore;
  governance(governance: RunGovernance): RunGovernance;
  report(): PhaseReport;
} {
  const open = new Map<string, Marks>();
  const turns: TurnPhases[] = [];
  /** A turn is counted once both its append and its reservation are done, whichever ends last. */
  const finish = (executorId: string, m: Marks) => {
    if (m.appended === undefined || m.reserved === undefined) return;
    open.delete(executorId);
    turns.push({
      toReservation: m.reserving! - m.reply,
      reserve: m.reserved - m.reserving!,
      commitWait: Math.max(0, m.appended - m.reserved),
      append: m.appended - m.reply,
    });
  };
  return {
    store: (store) => ({
      ...store,
      async append(streamId, expectedVersion, events) {
        const executorId = events[0]?.metadata.executorId ?? "";
        const marks = open.get(executorId);
        const result = await store.append(streamId, expectedVersion, events);
        // The first append after a reply is its turn's.
        if (marks && marks.appended === undefined && open.get(executorId) === marks) {
          marks.appended = performance.now();
          finish(executorId, marks);
        }
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
        if (marks && open.get(state.executorId) === marks) {
          // A refused call is no turn: the overhead figure counts only calls made.
          if (!verdict.ok) open.delete(state.executorId);
          else {
            Object.assign(marks, { reserving, reserved: performance.now() });
            finish(state.executorId, marks);
          }
        }
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
    Object.fromEntries([...PHASES, "append"].map((p) => [p, of.length ? of.reduce((ms, t) => ms + t[p as Phase], 0) / of.length : Number.NaN])) as TurnPhases;
  return { turns: turns.length, all: means(turns), tail: means(tail), tailTurns: tail.length, p99Ms };
}

const LABELS: Record<Phase, string> = { toReservation: "to the reservation", reserve: "reservation", commitWait: "commit wait" };

export function describePhases(r: PhaseReport): string {
  const list = (m: TurnPhases) => `${PHASES.map((p) => `${LABELS[p]} ${m[p].toFixed(1)}`).join(", ")} (append ${m.append.toFixed(1)})`;
  return `phases (ms, mean): the ${r.tailTurns} turns at or above p99 (${r.p99Ms.toFixed(1)} ms): ${list(r.tail)}; all ${r.turns} turns: ${list(r.all)}`;
}
