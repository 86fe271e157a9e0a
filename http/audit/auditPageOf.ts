import { type RunVerification, createEventStore, describeProblem } from "../../events/index.ts";
import { runBlobs } from "../../events/runBlobs.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import { auditPageData, excerptBlobs } from "../../ui/auditData.ts";
import { auditPagePolicy, renderAuditPage } from "../../ui/AuditPage.tsx";
import type { Verdict } from "../../ui/verdict.ts";
import type { AppDeps } from "../deps.ts";

/**
 * The audit page of a run in this server's store: the same page a bundle
 * holds as audit.html, with the banner from verifying the run in the
 * database now (chains recomputed, heads, seal, blobs, quotes).
 */
export async function auditPageOf(deps: AppDeps, runId: string): Promise<{ html: string; policy: string }> {
  const [events, verification] = await Promise.all([createEventStore(deps.database).readRun(runId), deps.reads.verifyRun(runId)]);
  const claims = claimsOfEvents(runId, events);
  const store = runBlobs(deps.database);
  const blobs = new Map<string, Uint8Array | null>();
  for (const sha256 of excerptBlobs(claims)) blobs.set(sha256, await store.get(sha256));
  const verdict = verdictOf(verification, events);
  const data = auditPageData({ runId, events, claims, blob: (sha256) => blobs.get(sha256) ?? null, verdict });
  return { html: renderAuditPage(data), policy: auditPagePolicy(data) };
}

function verdictOf(v: RunVerification, events: readonly RecordedEvent[]): Verdict {
  const seal = events.findLast((e): e is RecordedEvent<"run_sealed"> => e.type === "run_sealed");
  return {
    intact: v.ok,
    problem: v.problems[0] ? describeProblem(v.problems[0]) : null,
    checked: `every stream's chain recomputed from the database when this page was served, the references between streams, the seal, ${v.events} events, blobs and quotes (as ariadne verify RUN)`,
    rootHash: v.sealed?.rootHash ?? null,
    keyId: seal?.data.signature?.keyId ?? null,
  };
}
