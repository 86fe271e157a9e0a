import { isConcurrencyError } from "../core/errors.ts";
import type { EventStore, RecordedEvent, TaskSpec } from "../events/index.ts";
import { loadProfile, profileBinding } from "../profiles/index.ts";
import { type Capability, DELEGATE_TOOL, type ToolEffect, computeGrant } from "../tools/index.ts";
import { type ExecutorState } from "./fold/executorState.ts";
import { type Limits, OWNED_TOOLS, ROLES, type Role, roleOf } from "./request/roles.ts";
import { renderAdmission } from "./request/renderTexts.ts";
import { type ServerTool, putOnce, recordOffered } from "./request/offeredSpecs.ts";
import { type RequestContextOptions, offeredAt } from "./request/requestContext.ts";
import { executorStreamId } from "../events/index.ts";

/** What admission needs of the runtime: the store, the tools a run may grant, and the role settings frozen into each executor. */
export interface AdmissionOptions extends Pick<RequestContextOptions, "tools" | "allowedProfiles"> {
  store: EventStore;
  /** Every tool of the host (and delegate), with its effect class. */
  catalog: Record<string, ToolEffect>;
  /** Each tool's capability classes: no executor is granted network, private data and effects at once. */
  capabilities?: Readonly<Record<string, readonly Capability[]>>;
  /** Tools the root task allows anywhere in the run. */
  rootAllowed: string[];
  maxDepth?: number;
  profilesDir?: string;
  limitsFor(role: Role, singleAgent?: boolean): Limits;
  modelNameFor(role: Role): string;
  /** The server tools the role's model sends in place of offered specs (Anthropic's web_search), recorded as offered. */
  serverToolsFor(role: Role): ServerTool[];
  emit(event: RecordedEvent): void;
}

/** The executor a Child is admitted under, as its log has it. */
export type Parent = Pick<ExecutorState, "executorId" | "runId" | "depth" | "grantedTools">;

/** One executor to admit: Main (no parent, no profile) or a Child or Reviewer of `parent`. */
export interface Admission {
  executorId: string;
  role: Role;
  task: TaskSpec;
  /** Main's run id; a Child inherits its parent's. */
  runId?: string;
  parent?: Parent;
  parentToolUseId?: string | null;
  profile?: string;
  /** Tools the delegation asked for; default what the profile asks for. */
  tools?: string[];
  causationId?: string;
  /** Main of a single-agent run: granted every tool the run allows but delegate, and recorded so. */
  singleAgent?: boolean;
}

const TERMINALS = new Set(Object.values(ROLES).map((r) => r.terminalTool));

/** A role with tools of its own holds exactly those the host has; no other role holds any of them. */
function grantedFor(own: readonly string[] | undefined, granted: string[], catalog: Record<string, ToolEffect>): string[] {
  return own ? own.filter((t) => t in catalog) : granted.filter((t) => !OWNED_TOOLS.has(t));
}

/**
 * Records `executor_admitted` for any role, with the profile binding, the grant
 * and the limits frozen into the executor, in the executor's own stream at
 * version 0. A Child's admission that is already recorded is a no-op (a
 * delegation started again after a rebuild); Main's refuses a second one.
 * Returns what it recorded (the new executor's stream so far), or null for
 * that no-op.
 */
export async function admit(options: AdmissionOptions, a: Admission): Promise<RecordedEvent[] | null> {
  const { parent } = a;
  const role = roleOf(a.role);
  const profile = role.profile ? await loadProfile(role.profile.id, role.profile.dir) : a.profile ? await loadProfile(a.profile, options.profilesDir) : null;
  const depth = parent ? parent.depth + 1 : 0;
  const grant = computeGrant({
    ...(parent && { requested: a.tools ?? profile?.requestedTools }),
    parentGrant: parent?.grantedTools ?? null,
    rootAllowed: a.singleAgent ? options.rootAllowed.filter((t) => t !== DELEGATE_TOOL) : options.rootAllowed,
    catalog: options.catalog,
    capabilities: options.capabilities,
    isChild: !!parent,
    depth,
    maxDepth: options.maxDepth,
  });
  const streamId = executorStreamId(a.executorId);
  const runId = parent?.runId ?? a.runId;
  if (!runId) throw new Error(`admitting ${a.executorId}: Main needs a run id`);
  const singleAgent = !!a.singleAgent && !parent;
  const grantedTools = grantedFor(role.ownTools, parent ? grant.granted.filter((t) => !TERMINALS.has(t)) : grant.granted, options.catalog);
  // What its model is offered is stored before the admission names it, so the log never names bytes it lacks.
  const [offered] = await Promise.all([
    offeredAt({ role: a.role, singleAgent, grantedTools }, profile?.content ?? null, options, options.serverToolsFor(a.role)).then((o) => recordOffered(options.store.blobs, o)),
    profile && putOnce(options.store.blobs, profile.bytes, profile.sha256),
  ]);
  const admitted = await options.store.append(streamId, 0, [
    {
      type: "executor_admitted",
      data: {
        role: a.role,
        parentExecutorId: parent?.executorId ?? null,
        parentToolUseId: a.parentToolUseId ?? null,
        depth,
        task: a.task,
        profile: profile ? profileBinding(profile) : null,
        grantedTools,
        refusedTools: grant.refused.map((r) => ({ name: r.name, reason: r.detail })),
        model: options.modelNameFor(a.role),
        limits: options.limitsFor(a.role, singleAgent),
        ...(singleAgent ? { singleAgent: true as const } : {}),
        ...renderAdmission({ role: a.role, singleAgent, task: a.task }),
        offered,
      },
      metadata: { runId, executorId: a.executorId, ...(a.causationId && { causationId: a.causationId }) },
    },
  ]).catch((e: unknown) => {
    // The append at version 0 is the check (no query asks first): a Child whose stream is not empty was admitted before.
    if (parent && isConcurrencyError(e)) return null;
    throw e;
  });
  if (!admitted) return null;
  admitted.events.forEach((e) => options.emit(e));
  return admitted.events;
}
