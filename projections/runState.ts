import { type Projection, executorStreamOf, fieldsOf } from "./projection.ts";

export type RunStatus = "submitted" | "running" | "settled" | "failed" | "cancelled" | "interrupted";

export interface RunLifecycle {
  runId: string | null;
  mainExecutorId: string | null;
  question: string | null;
  /** Main's terminal event, from Main's own stream. */
  main: { status: "settled" | "failed" | "cancelled"; reason: string | null; partial: boolean; at: number } | null;
  /** Latest `run_interrupted` fact (position and reason). */
  interrupted: { at: number; reason: string | null } | null;
  /** Latest sign that work went on: `run_resumed`, an executor's `recovered`, a new turn or admission. */
  resumedAt: number;
  /** A `run_submitted` fact: recorded for workers to execute. */
  submitted: boolean;
  cancelRequested: boolean;
  sealed: boolean;
  events: number;
  firstPosition: number | null;
  lastPosition: number;
}

/** Events that show the run is being worked on again after an interruption. */
const RESUMING = new Set(["run_resumed", "recovered", "turn", "executor_admitted"]);

/**
 * The run as a unit. Its status, from events only:
 * 1. settled / failed / cancelled: Main's own `settled` / `failed` / `cancelled`
 *    event. Final: nothing later changes it.
 * 2. interrupted: Main is not final and the latest `run_interrupted` fact lies
 *    after (by log position) every sign of work going on: `run_resumed`, an
 *    executor's `recovered`, a `turn` or an admission. Tool outcomes recorded
 *    while stopping do not count as going on.
 * 3. before Main is admitted: cancelled if a cancel was requested, submitted
 *    after a `run_submitted` fact (waiting for a worker), else running.
 * 4. running: otherwise.
 * Executors left non-terminal with no live parent are reported by the run view
 * as `orphans` (see executorTree.ts). Who owns a run now (a lease) is not in the
 * log: a reader that knows (runs/) passes `ownerLive`, and a run that would be
 * running with no live owner is interrupted (its executors are left
 * non-terminal with nobody carrying them on).
 * Every field is a max, a min, a count or Main's own stream, so the order
 * different streams are read in does not matter.
 */
export const runState: Projection<RunLifecycle> = {
  name: "run-state",
  initial: () => ({
    runId: null,
    mainExecutorId: null,
    question: null,
    main: null,
    interrupted: null,
    resumedAt: 0,
    submitted: false,
    cancelRequested: false,
    sealed: false,
    events: 0,
    firstPosition: null,
    lastPosition: 0,
  }),
  evolve(state, event) {
    const type: string = event.type;
    const d = fieldsOf(event);
    const s: RunLifecycle = {
      ...state,
      runId: state.runId ?? event.metadata.runId,
      events: state.events + 1,
      firstPosition: Math.min(state.firstPosition ?? event.globalPosition, event.globalPosition),
      lastPosition: Math.max(state.lastPosition, event.globalPosition),
    };
    if (RESUMING.has(type)) s.resumedAt = Math.max(state.resumedAt, event.globalPosition);
    const inMain = state.mainExecutorId !== null && executorStreamOf(event) === state.mainExecutorId;
    switch (type) {
      case "executor_admitted":
        if (d.role === "main" && executorStreamOf(event)) {
          s.mainExecutorId = event.metadata.executorId;
          s.question = String((d.task as { question?: unknown })?.question ?? state.question ?? "");
        }
        return s;
      case "settled":
      case "failed":
      case "cancelled":
        if (inMain && !state.main) {
          // Partial: a limit stopped Main, or its answer rests on no finding at all (nothing it says was observed).
          const partial = d.partial === true || (type === "settled" && d.answer !== undefined && citesNoFinding(d.answer));
          s.main = { status: type, reason: typeof d.reason === "string" ? d.reason : null, partial, at: event.globalPosition };
        }
        return s;
      case "run_submitted":
        s.submitted = true;
        s.question = state.question ?? (typeof d.question === "string" ? d.question : null);
        return s;
      case "run_interrupted":
        if (!state.interrupted || event.globalPosition > state.interrupted.at) {
          s.interrupted = { at: event.globalPosition, reason: typeof d.reason === "string" ? d.reason : null };
        }
        return s;
      case "cancel_requested":
        s.cancelRequested = true;
        return s;
      case "run_sealed":
        s.sealed = true;
        return s;
      default:
        return s;
    }
  },
};

export function runStatus(state: RunLifecycle, ownership: { ownerLive?: boolean } = {}): RunStatus {
  if (state.main) return state.main.status;
  if (state.interrupted && state.interrupted.at > state.resumedAt) return "interrupted";
  if (state.mainExecutorId && ownership.ownerLive === false) return "interrupted";
  if (!state.mainExecutorId && state.cancelRequested) return "cancelled";
  if (!state.mainExecutorId && state.submitted) return "submitted";
  return "running";
}

/**
 * An answer none of whose claims cites a Child's finding (every section not
 * collected, or judgment alone): nothing in it was observed, so it is a partial
 * answer, however Main ended. Pure.
 */
export function citesNoFinding(answer: unknown): boolean {
  const sections = (answer as { sections?: { claims?: { basis?: string; citations?: unknown[] }[] }[] } | null)?.sections ?? [];
  return !sections.some((section) => (section.claims ?? []).some((c) => c.basis === "observed" && (c.citations?.length ?? 0) > 0));
}
