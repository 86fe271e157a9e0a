import { auditPageData } from "../../ui/auditData.ts";
import { renderAuditPage } from "../../ui/AuditPage.tsx";
import { verdictFromEvents } from "../../ui/verdict.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";
import { claimsOf } from "../claimsOf.ts";

/** audit.html: the audit page (ui/), self-contained, from the run's events and blobs only; its claims the bundle's one fold (claimsOf), as answer.md and claims.jsonl have them. */
export function writeAuditPage(run: BundleRun): DerivedFile[] {
  const verdict = verdictFromEvents(run.runId, run.events);
  return [textFile("audit.html", renderAuditPage(auditPageData({ runId: run.runId, events: run.events, blob: run.blob, verdict, claims: claimsOf(run) })))];
}
