import type { Outcome } from "../../actors/fold/executorState.ts";
import { isFencedError } from "../../core/errors.ts";
import { isDiskFull } from "../../core/diskFull.ts";
import type { Database } from "../../db/openDatabase.ts";
import { storeDiskFull } from "../../db/storeDiskFull.ts";
import type { EventData } from "../../events/index.ts";
import { isConnectionError } from "./reconnectingStore.ts";

export type HostResult =
  | { kind: "finished"; outcome: Outcome; rootHash: string }
  /** Another owner took the run (lease lost or fenced append): this host wrote nothing more. */
  | { kind: "fenced"; reason: string }
  | { kind: "interrupted"; inFlight: string[] }
  /**
   * Given back to the queue (worker shutdown, a failure that a resume may get past).
   * `diskFull`: the store's disk filled up; the run is interrupted, for a resume once there is space.
   */
  | { kind: "released"; reason: string; diskFull?: true };

/**
 * How a host leaves a run, whatever ended its hosting: the `run_interrupted`
 * fact to write first (if any), the state to leave the lease in (null: leave
 * it alone, the run is another owner's now), and what `done` says. hostRun
 * carries it out in one place (its `leave`).
 */
export interface HostLeaving {
  interrupted?: EventData<"run_interrupted">;
  lease: "running" | "interrupted" | "finished" | null;
  result: HostResult;
  /** A release that must happen rides out a lost connection (the run finished; the connection was what failed). */
  retry?: true;
  /** Best effort: a fact or release that cannot be written is given up on (the lease then runs out). */
  bestEffort?: true;
}

/** Main ended and the run is sealed: it is released as finished. */
export const finishedLeaving = (outcome: Outcome, rootHash: string): HostLeaving => ({ lease: "finished", retry: true, result: { kind: "finished", outcome, rootHash } });

/** The operator stopped the host: interrupted for a resume or cancel, or given back to the queue (a worker shutting down). */
export function stopLeaving(how: "interrupt" | "release", inFlight: string[]): HostLeaving {
  return how === "interrupt"
    ? { interrupted: { reason: "interrupted by the operator", by: "operator", inFlight }, lease: "interrupted", result: { kind: "interrupted", inFlight } }
    : { lease: "running", result: { kind: "released", reason: "the worker is shutting down" } };
}

/**
 * A host's work failed: what to write and which lease state to leave. A
 * fenced append: nothing (the run is another owner's). A lost connection: back
 * to the queue, to be taken again once the database answers. A full disk:
 * interrupted, for a resume once there is space (retaking the run would meet
 * the same disk). A damaged log: interrupted with nothing written to it.
 * Anything else (no model configured, a changed profile) would fail the same
 * way again at once: interrupted, for an operator to fix and resume or cancel.
 * No executor recorded anything for the failed step (actors/runner.ts), so the
 * next host rebuilds the run from what was acknowledged.
 */
export async function hostOutcome(error: unknown, database: Database, runId: string): Promise<HostLeaving> {
  const reason = (error as Error).message ?? String(error);
  if (isFencedError(error)) return { lease: null, result: { kind: "fenced", reason: error.message } };
  if (isConnectionError(error)) return { lease: "running", retry: true, bestEffort: true, result: { kind: "released", reason } };
  if (isDiskFull(error) || (await database.outOfSpace?.().catch(() => false))) {
    const full = storeDiskFull(database, `run ${runId} is interrupted; free some space, then: ariadne resume ${runId}`, error).message;
    return { interrupted: { reason: full, by: "error", inFlight: [] }, lease: "interrupted", bestEffort: true, result: { kind: "released", reason: full, diskFull: true } };
  }
  if ((error as { code?: string }).code === "RUN_DAMAGED") return { lease: "interrupted", bestEffort: true, result: { kind: "released", reason } };
  return { interrupted: { reason, by: "error", inFlight: [] }, lease: "interrupted", bestEffort: true, result: { kind: "released", reason } };
}
