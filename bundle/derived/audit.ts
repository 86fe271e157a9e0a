import { auditPageData } from "../../ui/auditData.ts";
import { renderAuditPage } from "../../ui/AuditPage.tsx";
import { verdictFromEvents } from "../../ui/verdict.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";

/** audit.html: the audit page (ui/), self-contained, from the run's events and blobs only. */
export function writeAuditPage(run: BundleRun): DerivedFile[] {
  const verdict = verdictFromEvents(run.runId, run.events);
  return [textFile("audit.html", renderAuditPage(auditPageData({ runId: run.runId, events: run.events, blob: run.blob, verdict })))];
}
