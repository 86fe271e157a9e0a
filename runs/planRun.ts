import { type IssueDetail, ValidationError, isValidationError } from "../core/errors.ts";
import { type Caps, CONFIGURED_CAPS } from "../governance/config.ts";
import { listProfiles } from "../profiles/index.ts";
import { type ChosenRun, type RunRequest, chooseRun } from "./chooseRun.ts";
import { type AskedCaps, resolveRunCaps, runLimitsOf } from "./runCaps.ts";
import { RunOptions } from "./lease/runLease.ts";
import { RunMetadata } from "./runMetadata.ts";
import { traceOfTraceparent } from "../telemetry/traceparent.ts";

/** Everything a submitter may ask of a run, from the command line (`run`, `submit`) or the API (`POST /v1/runs`). */
export interface RunSubmission extends RunRequest {
  /** Background given with the question. */
  context?: string;
  /** Profiles Main may delegate to; default every installed one. */
  allowedProfiles?: string[];
  /** Caps at or below the maximum; Child caps lower investigate-style Children too. */
  caps?: AskedCaps;
  reviewer?: "off" | "shadow" | "advisory";
  /** Model name per role, over the configured ones. */
  models?: { main?: string; child?: string; reviewer?: string };
  modelIdleTimeoutMs?: number;
  /** Hints for whoever hosts the run (RunOptions.tags). */
  tags?: Record<string, string>;
  /** The submitter's string map, carried with the run and filterable in the API's list (bounded: runs/runMetadata.ts). */
  metadata?: Record<string, string>;
  /** One executor with every tool but delegate, no Children: the control an evaluation measures isolation against. */
  singleAgent?: boolean;
  /** The submitter's W3C traceparent (the API's header, the CLI's TRACEPARENT): the run's spans join its trace. */
  traceparent?: string;
}

export interface PlanContext {
  modelConfigured: boolean;
  /** With nothing asked: the default scenario (the command line) or a refusal (the API, `submit` with a key). */
  nothingAsked: "scenario" | "refuse";
  /** The most a run may ask for; default the configured caps. */
  maximum?: Caps;
  profilesDir?: string;
}

/** A run ready to record with submitRun: its question and options, and what was chosen. */
export interface RunPlan {
  choice: ChosenRun;
  question: string;
  options: RunOptions;
}

/**
 * Checks a submission whole before anything is written, for every submitter
 * alike: which run it makes (chooseRun: RunRequestError, ModelNotConfiguredError),
 * then its caps and allowed profiles together, refused with one ValidationError
 * naming each field (`caps.main.maxTurns`, `caps.delegation.maxDepth`, `allowedProfiles`).
 */
export async function planRun(submission: RunSubmission, context: PlanContext): Promise<RunPlan> {
  const choice = chooseRun(submission, context);
  const issues: IssueDetail[] = [];
  let caps: Caps | undefined;
  try {
    caps = resolveRunCaps(submission.caps, context.maximum ?? CONFIGURED_CAPS);
  } catch (e) {
    if (!isValidationError(e)) throw e;
    issues.push(...e.issues.map((i) => ({ path: ["caps", ...i.path], message: i.message })));
  }
  if (submission.allowedProfiles) {
    const known = (await listProfiles(context.profilesDir)).map((p) => p.id);
    const unknown = submission.allowedProfiles.filter((p) => !known.includes(p));
    if (unknown.length) issues.push({ path: ["allowedProfiles"], message: `unknown ${unknown.join(", ")} (known: ${known.join(", ")})` });
  }
  if (submission.metadata !== undefined) {
    const checked = RunMetadata.safeParse(submission.metadata);
    if (!checked.success) issues.push(...checked.error.issues.map((i) => ({ path: ["metadata", ...i.path.map((p) => (typeof p === "number" ? p : String(p)))], message: i.message })));
  }
  if (submission.singleAgent) issues.push(...singleAgentConflicts(submission));
  if (issues.length) throw new ValidationError("invalid run", issues);
  const options = RunOptions.parse({
    mode: choice.kind === "scenario" ? "offline" : choice.kind,
    scenario: choice.kind === "scenario" ? choice.scenario : undefined,
    tags: submission.tags ?? {},
    caps,
    limits: runLimitsOf(submission.caps),
    reviewer: submission.reviewer ?? "off",
    allowedProfiles: submission.allowedProfiles ? [...new Set(submission.allowedProfiles)] : undefined,
    context: submission.context,
    models: submission.models,
    modelIdleTimeoutMs: submission.modelIdleTimeoutMs,
    metadata: submission.metadata && Object.keys(submission.metadata).length ? submission.metadata : undefined,
    singleAgent: submission.singleAgent ? true : undefined,
    trace: traceOfTraceparent(submission.traceparent),
  });
  return { choice, question: choice.question, options };
}

/**
 * What a single-agent run cannot honour, since it has no Children: profiles to
 * delegate to, a Reviewer of consumed findings, Child or delegation caps, a
 * Child's or Reviewer's model. Refused rather than ignored, so a comparison is
 * never run with settings that silently did nothing.
 */
function singleAgentConflicts(submission: RunSubmission): IssueDetail[] {
  const why = "makes no sense with singleAgent (--single-agent): a single-agent run has no Children";
  const issues: IssueDetail[] = [];
  if (submission.allowedProfiles) issues.push({ path: ["allowedProfiles"], message: `${why} to delegate to` });
  if (submission.reviewer && submission.reviewer !== "off") issues.push({ path: ["reviewer"], message: `${why} whose findings a Reviewer reads (--reviewer ${submission.reviewer})` });
  for (const key of Object.keys(submission.caps?.child ?? {})) issues.push({ path: ["caps", "child", key], message: `${why} to cap (--max-child-* flags)` });
  for (const key of Object.keys(submission.caps?.delegation ?? {})) issues.push({ path: ["caps", "delegation", key], message: `${why}: it delegates nothing (--max-depth, --max-fan-out)` });
  for (const role of ["child", "reviewer"] as const) if (submission.models?.[role]) issues.push({ path: ["models", role], message: `${why}, so no ${role} model` });
  return issues;
}
