import { createHash } from "node:crypto";

/**
 * A span's id from where it sits in the log: the run, the executor and the
 * event that opened it. Any process that folds the same log names the same
 * span the same way, so a worker that takes a run over continues its trace,
 * and a span exported twice is the same span, not a second one.
 */
export function spanIdOf(runId: string, executorId: string, eventId: string): string {
  const id = createHash("sha256").update(`${runId}\u0000${executorId}\u0000${eventId}`).digest("hex").slice(0, 16);
  // The all-zero id is invalid in W3C trace context; one in 2^64, but never emit it.
  return /^0+$/.test(id) ? "0000000000000001" : id;
}

/** The trace id of a run recorded before trace ids were recorded with runs: derived from its run id. */
export function traceIdOfRunId(runId: string): string {
  return createHash("sha256").update(`trace\u0000${runId}`).digest("hex").slice(0, 32);
}
