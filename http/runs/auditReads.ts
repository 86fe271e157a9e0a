import { type Transcript } from "../../actors/index.ts";
import { transcriptOf } from "../../runs/index.ts";
import { type EventStore, type RecordedEvent, type RunVerification, verifyRun, executorStreamId } from "../../events/index.ts";
import { type RunClaims, type RunReport, projectClaims, projectReport } from "../../projections/index.ts";

/** What http/ reads besides run views: an executor's events and transcript, and a run's verification. */
export interface RunReads {
  executorEvents(executorId: string): Promise<RecordedEvent[]>;
  /** Rebuilt with the same tools and the run's options as `ariadne transcript`, digests checked. */
  transcript(executorId: string): Promise<Transcript>;
  /** events/verifyRun: every chain, the references between streams, the seal and the root hash. */
  verifyRun(runId: string): Promise<RunVerification>;
  /** projections/claimChains: each claim of the answer followed to the bytes behind it. */
  claims(runId: string): Promise<RunClaims>;
  /** projections/runReportView: what the run spent, per run and per executor. */
  report(runId: string): Promise<RunReport>;
}

export function auditReads(store: EventStore): RunReads {
  return {
    executorEvents: (executorId) => store.readStream(executorStreamId(executorId)),
    transcript: (executorId) => transcriptOf(store, executorId),
    verifyRun: (runId) => verifyRun(store.database, runId),
    claims: (runId) => projectClaims(store, runId),
    report: (runId) => projectReport(store, runId),
  };
}
