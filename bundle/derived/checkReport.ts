import { renderCheckReport } from "../../checker/checkReport.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";
import { claimsOf } from "../claimsOf.ts";

/**
 * check-report.md: the run's latest check_completed, rendered as `ariadne check`
 * renders it. From the event alone: the sources were read when the check ran,
 * and a bundle is re-derived offline, so nothing is read again here.
 */
export function writeCheckReport(run: BundleRun): DerivedFile[] {
  const check = run.events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  if (!check) return [textFile("check-report.md", `# Check report: run ${run.runId}\n\nNot checked: the run has no check_completed event (ariadne check RUN records one).\n`)];
  // The claims as the check numbered them (c1, c2, …, the ids every file of the bundle uses).
  const claims = claimsOf(run).claims;
  return [textFile("check-report.md", renderCheckReport({ runId: run.runId, checkedAt: check.recordedAt.toISOString(), eventId: check.eventId }, check.data, claims))];
}
