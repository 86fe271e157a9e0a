import type { Answer } from "../../actors/answer.ts";
import { type ReportedClaim, renderCheckReport } from "../../checker/checkReport.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";

/**
 * check-report.md: the run's latest check_completed, rendered as `ariadne check`
 * renders it. From the event alone: the sources were read when the check ran,
 * and a bundle is re-derived offline, so nothing is read again here.
 */
export function writeCheckReport(run: BundleRun): DerivedFile[] {
  const check = run.events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  if (!check) return [textFile("check-report.md", `# Check report: run ${run.runId}\n\nNot checked: the run has no check_completed event (ariadne check RUN records one).\n`)];
  const settled = run.events.find((e): e is RecordedEvent<"settled"> => e.eventId === check.data.answerEventId);
  return [textFile("check-report.md", renderCheckReport({ runId: run.runId, checkedAt: check.recordedAt.toISOString(), eventId: check.eventId }, check.data, claimsOf(settled?.data.answer)))];
}

/** The answer's claims numbered c1, c2, … in order, as the claim provenance projection (and so the check) numbers them. */
function claimsOf(answer: Record<string, unknown> | undefined): ReportedClaim[] {
  const sections = Array.isArray((answer as Partial<Answer> | undefined)?.sections) ? (answer as Answer).sections : [];
  return sections.flatMap((s) => (Array.isArray(s.claims) ? s.claims : []).map((c) => ({ section: String(s.heading ?? ""), text: String(c.text ?? "") }))).map((c, i) => ({ id: `c${i + 1}`, ...c }));
}
