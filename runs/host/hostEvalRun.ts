import type { Database } from "../../db/openDatabase.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import { readTexts, textShas } from "../check/answerToCheck.ts";
import { type BuildRuntime, type HostResult, hostRun } from "./hostRun.ts";
import { leaseOwner } from "../lease/leaseOwner.ts";
import { submitRun } from "../submitRun.ts";
import { takeLease } from "../lease/takeLease.ts";

export interface EvalRun {
  runId: string;
  result: HostResult;
  events: RecordedEvent[];
  /** The stored texts of what the answer cites (sources, quotes, artifacts), by blob sha256. */
  texts: Map<string, string>;
}

/**
 * One eval run, start to end in this process: submitted as an offline run,
 * leased and hosted with the runtime the eval builds (its lane's model, the
 * corpus's tools), then read back with the texts its answer cites.
 * `buildRuntime` has no source readers: the eval scores the run's own record.
 */
export async function hostEvalRun(
  deps: { database: Database; store: EventStore; buildRuntime: BuildRuntime; ttlMs?: number },
  run: { question: string; scenario?: string; tags?: Record<string, string>; singleAgent?: boolean },
): Promise<EvalRun> {
  const ttlMs = deps.ttlMs ?? 60_000;
  const options = { mode: "offline", ...(run.scenario && { scenario: run.scenario }), ...(run.singleAgent && { singleAgent: true }), tags: { eval: "1", ...run.tags } };
  const { runId } = await submitRun(deps.store, { question: run.question, options });
  const lease = await takeLease(deps.database, { owner: leaseOwner("eval"), ttlMs, runId });
  if (!lease) throw new Error(`eval run ${runId} could not be leased`);
  const result = await hostRun({ database: deps.database, store: deps.store, buildRuntime: deps.buildRuntime, ttlMs }, lease).done;
  const events = await deps.store.readRun(runId);
  const texts = await readTexts(createDatabaseBlobStore(deps.database.db), textShas(claimsOfEvents(runId, events)));
  return { runId, result, events, texts };
}
