import { sql } from "kysely";
import { type IdGenerator, randomId } from "../core/clock.ts";
import { ValidationError, fromZodIssues } from "../core/errors.ts";
import { UNSTORABLE_TEXT, isStorableText } from "../core/sanitizeText.ts";
import type { EventStore } from "../events/index.ts";
import { resolveCaps } from "../governance/config.ts";
import { newTraceId } from "../telemetry/traceparent.ts";
import { appendRunFact } from "./appendRunFact.ts";
import { RUNS_CHANNEL, type RunLease, RunOptions } from "./lease/runLease.ts";

export interface SubmittedRun {
  runId: string;
  mainExecutorId: string;
  /** Set when the submitter hosts the run itself (`ariadne run`): leased to it from the start, at epoch 1. */
  lease?: RunLease;
}

/**
 * Records a run for workers: its row in ariadne_runs (state submitted, no
 * owner) and its run_submitted fact in run-<runId>. Ids are chosen here, so the
 * caller can print the run id before any worker has started it.
 */
export async function submitRun(
  store: EventStore,
  input: { question: string; options?: unknown; tenant?: string | null; keyId?: string | null },
  newId: IdGenerator = randomId,
  hold?: { owner: string; ttlMs: number },
): Promise<SubmittedRun> {
  const question = input.question?.trim();
  if (!question) throw new ValidationError("invalid run", [{ path: ["question"], message: "a non-empty question" }]);
  if (!isStorableText(question)) throw new ValidationError("invalid run", [{ path: ["question"], message: UNSTORABLE_TEXT }]);
  const parsed = RunOptions.safeParse(input.options ?? {});
  if (!parsed.success) throw new ValidationError("invalid run", fromZodIssues(parsed.error.issues, ["options"]));
  // The caps the run is held to are recorded with it, defaults included, so its budget can be read from the log.
  parsed.data.caps ??= resolveCaps();
  // So is its trace: a submitter's traceparent (planRun), else a trace of its own.
  parsed.data.trace ??= { traceId: newTraceId() };
  const run = { runId: newId(), mainExecutorId: newId() };
  // The fact first: a row without its fact would be a run no projection knows about.
  await appendRunFact(store, run, { type: "run_submitted", data: { question, options: parsed.data } });
  if (hold) {
    // Inserted already leased, so no worker can take it between the insert and the lease.
    await sql`
      INSERT INTO ariadne_runs (run_id, main_executor_id, question, options, state, tenant, lease_owner, lease_expires_at, lease_renewed_at, epoch, metadata)
      VALUES (${run.runId}, ${run.mainExecutorId}, ${question}, ${JSON.stringify(parsed.data)}::jsonb, 'running', ${input.tenant ?? null},
              ${hold.owner}, now() + make_interval(secs => ${hold.ttlMs / 1000}), now(), 1, ${JSON.stringify(parsed.data.metadata ?? {})}::jsonb)`.execute(store.database.db);
    return { ...run, lease: { ...run, question, options: parsed.data, owner: hold.owner, epoch: 1, fresh: true } };
  }
  await sql`
    INSERT INTO ariadne_runs (run_id, main_executor_id, question, options, state, tenant, key_id, metadata)
    VALUES (${run.runId}, ${run.mainExecutorId}, ${question}, ${JSON.stringify(parsed.data)}::jsonb, 'submitted', ${input.tenant ?? null}, ${input.keyId ?? null},
            ${JSON.stringify(parsed.data.metadata ?? {})}::jsonb)`.execute(
    store.database.db,
  );
  store.database.notify?.(RUNS_CHANNEL);
  return run;
}
