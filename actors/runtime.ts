import canonicalize from "canonicalize";
import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import { NotFoundError } from "../core/errors.ts";
import { EVENTS_CHANNEL, type EventData, type EventStore, type RecordedEvent } from "../events/index.ts";
import type { Governance } from "../governance/port.ts";
import type { Model, ToolSpec } from "../models/types.ts";
import type { BlobStore } from "../sources/types.ts";
import { UnknownProfileError, assertBindingMatches, listProfiles, loadProfile, profileBinding } from "../profiles/index.ts";
import { DELEGATE_TOOL, type ToolEffect, ToolRegistry, computeGrant } from "../tools/index.ts";
import type { RequestContext } from "./buildRequest.ts";
import { cancelRequest } from "./decide/cancel.ts";
import type { Draft } from "./decide/draft.ts";
import { type DelegateInput, delegateToolSpec } from "./delegation.ts";
import { type Outcome, type Role, streamIdOf } from "./executorState.ts";
import { limitsGovernance } from "./governance.ts";
import { type PostResult, postToExecutor } from "./postToExecutor.ts";
import { renderConsumedHandoff } from "./prompts.ts";
import { type ReviewMode, type ReviewPolicy, defaultReviewPolicy } from "./reviewPolicy.ts";
import { type Limits, ROLES, roleOf } from "./roles.ts";
import { ExecutorRunner } from "./runner.ts";
import type { RuntimeServices } from "./runtimeServices.ts";
import { type Transcript, rebuildTranscript } from "./transcript.ts";

type CancelledBy = EventData<"cancelled">["by"];

export interface RuntimeOptions {
  store: EventStore;
  /** The model each role talks to, and the model name it asks for (a Reviewer defaults to the Child's). */
  models: { main: Model; child: Model; reviewer?: Model };
  modelNames: { main: string; child: string; reviewer?: string };
  tools: ToolRegistry;
  profilesDir?: string;
  /**
   * The Specialty Profiles a delegation may name in this run; default: every installed one. The
   * delegate tool offers only these, and a delegation naming another is refused as invalid input.
   */
  allowedProfiles?: readonly string[];
  /** Tools the root task allows anywhere in the run; default: every registered tool and delegate. */
  rootAllowed?: string[];
  /** Executors at this depth may not delegate; 1 means only Main delegates. */
  maxDepth?: number;
  /** Per-role limits over the role's defaults (roles.ts), frozen into each executor at admission. */
  limits?: Partial<Record<Role, Partial<Limits>>>;
  maxTokens?: number;
  /**
   * Consulted before every model and tool call and after each model call; default: the admitted limits
   * only. A function receives the runtime's inbox writer (`post`), for governance that raises reminders
   * or cancels executors.
   */
  governance?: Governance | ((ports: GovernancePorts) => Governance);
  clock?: Clock;
  newId?: IdGenerator;
  /** Every event the runtime records, as it is recorded (progress, tracing). */
  onEvent?: (event: RecordedEvent) => void;
  /**
   * Reviews of Main's consumed findings: off (default); shadow (the Reviewer spends the run's
   * budget, nothing reaches Main); advisory (its findings reach Main once, marked as advice).
   */
  reviewer?: ReviewMode;
  /** When to start a review (pure); default: once per distinct set of findings, one at a time. */
  reviewPolicy?: ReviewPolicy;
  /** Where tools keep what they read and write, content-addressed (the run's blob table); absent, tools needing it fail clearly. */
  blobs?: BlobStore;
  /** Executors' working folders live under `<workspaceRoot>/<runId>/<executorId>/`; absent, tools get no workspace. */
  workspaceRoot?: string;
}

export interface RunHandle {
  runId: string;
  mainExecutorId: string;
  /** Resolves when Main reaches a final state. */
  result: Promise<Outcome>;
}

/** What the runtime lends its governance. */
export interface GovernancePorts {
  store: EventStore;
  /** Appends facts to an executor's inbox (refused once it is final) and pokes its runner here. */
  post(executorId: string, drafts: readonly Draft[]): Promise<PostResult>;
}

export interface CancelRequest {
  runId: string;
  /** One executor of the run; absent: the whole run (Main, cascading to every live Child). */
  executorId?: string;
  reason: string;
  by: CancelledBy;
}

const FINAL = new Set(["settled", "cancelled", "failed"]);

/**
 * One runtime for Main and every Child: admits executors, hosts their runners,
 * connects delegations to their Children, passes facts from outside into
 * executors' inboxes and rebuilds executors from the log.
 */
export class Runtime implements RuntimeServices {
  readonly store: EventStore;
  readonly tools: ToolRegistry;
  readonly governance: Governance;
  readonly newId: IdGenerator;
  private readonly runners = new Map<string, ExecutorRunner>();
  private readonly catalog: Record<string, ToolEffect>;
  private readonly rootAllowed: string[];
  private readonly mainOf = new Map<string, string>();

  constructor(private readonly options: RuntimeOptions) {
    this.store = options.store;
    this.tools = options.tools;
    const governance = options.governance ?? limitsGovernance;
    this.governance = typeof governance === "function" ? governance({ store: this.store, post: this.post }) : governance;
    this.newId = options.newId ?? randomId;
    this.catalog = { ...options.tools.catalog(), [DELEGATE_TOOL]: "idempotent" };
    this.rootAllowed = options.rootAllowed ?? Object.keys(this.catalog);
  }

  get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  get blobs(): BlobStore | undefined {
    return this.options.blobs;
  }

  get workspaceRoot(): string | undefined {
    return this.options.workspaceRoot;
  }

  private limitsFor(role: Role): Limits {
    return { ...ROLES[role].defaultLimits, ...this.options.limits?.[role] };
  }

  private modelFor(role: Role): { model: Model; name: string } {
    const { models, modelNames } = this.options;
    return { model: models[role] ?? models.child, name: modelNames[role] ?? modelNames.child };
  }

  /** Admits Main for a question and starts it; Children are admitted as Main delegates. */
  async startRun(question: string, context = "", ids?: { runId: string; mainExecutorId: string }): Promise<RunHandle> {
    // A submitted run already has its ids (runs/submitRun.ts); a direct run gets new ones.
    const runId = ids?.runId ?? this.newId();
    const mainExecutorId = ids?.mainExecutorId ?? this.newId();
    const grant = computeGrant({
      parentGrant: null,
      rootAllowed: this.rootAllowed,
      catalog: this.catalog,
      isChild: false,
      depth: 0,
      maxDepth: this.options.maxDepth,
    });
    await this.store
      .append(streamIdOf(mainExecutorId), 0, [
        {
          type: "executor_admitted",
          data: {
            role: "main",
            parentExecutorId: null,
            parentToolUseId: null,
            depth: 0,
            task: { question, context, doneWhen: "" },
            profile: null,
            grantedTools: grant.granted,
            refusedTools: grant.refused.map((r) => ({ name: r.name, reason: r.detail })),
            model: this.modelFor("main").name,
            limits: this.limitsFor("main"),
          },
          metadata: { runId, executorId: mainExecutorId },
        },
      ])
      .then((r) => r.events.forEach((e) => this.emit(e)));
    this.mainOf.set(runId, mainExecutorId);
    const runner = await this.load(mainExecutorId);
    return { runId, mainExecutorId, result: runner.run() };
  }

  /**
   * Rebuilds an executor from its stream and runs it to a final state. A Child's
   * frozen profile binding is checked first: a changed profile refuses redispatch.
   */
  async resume(executorId: string): Promise<Outcome> {
    return (await this.load(executorId)).run();
  }

  /**
   * Rebuilds every live executor of a run, Main first, and runs them: Children
   * re-attach to the delegations that admitted them. Resolves with Main's handle.
   */
  async resumeRun(runId: string): Promise<RunHandle> {
    const events = await this.store.readRun(runId);
    const admitted = events.filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted");
    const main = admitted.find((e) => e.data.role === "main");
    if (!main) throw new NotFoundError(`no run ${runId} in the log`);
    const mainExecutorId = main.metadata.executorId;
    // Every live executor is rebuilt before any runs: one that cannot be (its bound profile changed)
    // stops the resume before anything is written, so restoring the file lets the run resume.
    const ended = new Set(events.filter((e) => FINAL.has(e.type)).map((e) => e.metadata.executorId));
    for (const e of admitted) if (!ended.has(e.metadata.executorId)) await this.load(e.metadata.executorId);
    this.mainOf.set(runId, mainExecutorId);
    const result = (await this.load(mainExecutorId)).run();
    for (const e of admitted) {
      if (e === main) continue;
      const runner = await this.load(e.metadata.executorId).catch(() => null);
      // A Child that cannot be rebuilt fails its delegation when its parent reaches it.
      if (runner && !runner.fold.done) void runner.run().catch(() => {});
    }
    return { runId, mainExecutorId, result };
  }

  /**
   * Asks a run (its Main, cascading to every live Child) or one executor to
   * stop: a `cancel_requested` fact in its stream, acted on at its next step;
   * a runner of this process is poked so an effect in flight is aborted now.
   */
  async requestCancel(request: CancelRequest): Promise<PostResult> {
    const target = request.executorId ?? this.mainOf.get(request.runId) ?? (await this.findMain(request.runId));
    return this.post(target, [cancelRequest(request.reason, request.by, request.executorId ? "executor" : "run")]);
  }

  /**
   * Puts facts in an executor's inbox (postToExecutor) and pokes its runner if
   * it lives in this process, so it folds them now rather than at its next
   * append. This is the `post` governance is given.
   */
  post = async (executorId: string, drafts: readonly Draft[]): Promise<PostResult> => {
    const result = await postToExecutor(this.store, executorId, drafts);
    if (result.ok) {
      result.events.forEach((e) => this.emit(e));
      await this.runners.get(executorId)?.poke();
    }
    return result;
  };

  /**
   * Watches the log for facts that other processes post to this process's
   * executors (a cancel request from `ariadne cancel`, a budget decision):
   * on each notification (LISTEN/NOTIFY on PostgreSQL, in-process on PGlite),
   * every runner waiting on a long effect whose stream moved on is poked.
   * Returns the function that stops watching.
   */
  async watchInboxes(): Promise<() => Promise<void>> {
    let checking: Promise<void> | null = null;
    let again = false;
    const check = async () => {
      do {
        again = false;
        const live = [...this.runners.values()].filter((r) => !r.fold.done);
        const waiting = live.filter((r) => r.waiting);
        // A runner busy between waits reads its stream before its next wait.
        for (const r of live) if (!r.waiting) r.stale = true;
        await Promise.all(
          waiting.map(async (r) => {
            if ((await this.store.streamVersion(r.state.streamId)) > r.state.version) await r.poke();
          }),
        );
      } while (again);
    };
    return this.store.database.listen(EVENTS_CHANNEL, () => {
      if (checking) {
        again = true;
        return;
      }
      checking = check()
        .catch(() => {})
        .finally(() => (checking = null));
    });
  }

  private async findMain(runId: string): Promise<string> {
    const main = (await this.store.readRun(runId)).find((e) => e.type === "executor_admitted" && e.data.role === "main");
    if (!main) throw new NotFoundError(`no run ${runId} in the log`);
    return main.metadata.executorId;
  }

  /** The runner of an executor, rebuilt from its events if this process has not seen it yet. */
  async load(executorId: string): Promise<ExecutorRunner> {
    const known = this.runners.get(executorId);
    if (known) return known;
    const events = await this.store.readStream(streamIdOf(executorId));
    if (events.length === 0) throw new NotFoundError(`no executor ${executorId} in the log`);
    const admitted = events[0] as RecordedEvent<"executor_admitted">;
    const ctx = await this.requestContext(admitted.data);
    const again = this.runners.get(executorId);
    if (again) return again;
    const runner = new ExecutorRunner(this, roleOf(admitted.data.role), ctx, this.modelFor(admitted.data.role).model, events);
    this.runners.set(executorId, runner);
    return runner;
  }

  /** An executor's full transcript, rebuilt from the log and checked against the recorded digests. */
  async transcript(executorId: string): Promise<Transcript> {
    const events = await this.store.readStream(streamIdOf(executorId));
    if (events.length === 0) throw new NotFoundError(`no executor ${executorId} in the log`);
    const ctx = await this.requestContext((events[0] as RecordedEvent<"executor_admitted">).data);
    return rebuildTranscript(events, ctx);
  }

  private async requestContext(admitted: EventData<"executor_admitted">): Promise<RequestContext> {
    const profile = admitted.profile ? await assertBindingMatches(admitted.profile, this.options.profilesDir) : null;
    const granted = admitted.grantedTools;
    const specs: ToolSpec[] = this.tools.specsFor(granted.filter((t) => t !== DELEGATE_TOOL));
    if (granted.includes(DELEGATE_TOOL)) specs.push(delegateToolSpec(await this.delegableProfiles()));
    specs.push(roleOf(admitted.role).terminalSpec);
    return { profileContent: profile?.content ?? null, tools: specs, maxTokens: this.options.maxTokens ?? 4096 };
  }

  emit(event: RecordedEvent): void {
    this.options.onEvent?.(event);
  }

  effectOf(tool: string): ToolEffect {
    return this.catalog[tool] ?? "effectful";
  }

  /** The installed profiles a delegation may name in this run (allowedProfiles narrows them). */
  private async delegableProfiles() {
    const installed = await listProfiles(this.options.profilesDir);
    const allowed = this.options.allowedProfiles;
    return allowed ? installed.filter((p) => allowed.includes(p.id)) : installed;
  }

  async checkDelegation(input: DelegateInput): Promise<string | null> {
    const allowed = this.options.allowedProfiles;
    if (allowed && !allowed.includes(input.profile)) {
      return `Profile "${input.profile}" is not allowed in this run. Allowed profiles: ${allowed.join(", ")}. Delegate again with one of them.`;
    }
    try {
      await loadProfile(input.profile, this.options.profilesDir);
      return null;
    } catch (e) {
      if (!(e instanceof UnknownProfileError)) throw e;
      const known = (await listProfiles(this.options.profilesDir)).map((p) => p.id).join(", ");
      return `Unknown profile "${input.profile}". Available profiles: ${known}. Delegate again with one of them.`;
    }
  }

  async admitChild(
    parent: ExecutorRunner,
    child: { childExecutorId: string; toolUseId: string | null; input: DelegateInput; causationId: string; role?: Role },
  ): Promise<void> {
    const p = parent.state;
    const role = child.role ?? "child";
    const profile = await loadProfile(child.input.profile, this.options.profilesDir);
    const grant = computeGrant({
      requested: child.input.tools ?? profile.requestedTools,
      parentGrant: p.grantedTools,
      rootAllowed: this.rootAllowed,
      catalog: this.catalog,
      isChild: true,
      depth: p.depth + 1,
      maxDepth: this.options.maxDepth,
    });
    const terminals = new Set(Object.values(ROLES).map((r) => r.terminalTool));
    // Admission is recorded in the Child's own stream; version 0 makes a repeated admission a no-op.
    const existing = await this.store.streamVersion(streamIdOf(child.childExecutorId));
    if (existing === 0) {
      await this.store
        .append(streamIdOf(child.childExecutorId), 0, [
          {
            type: "executor_admitted",
            data: {
              role,
              parentExecutorId: p.executorId,
              parentToolUseId: child.toolUseId,
              depth: p.depth + 1,
              task: { question: child.input.question, context: child.input.context, doneWhen: child.input.done_when },
              profile: profileBinding(profile),
              grantedTools: grant.granted.filter((t) => !terminals.has(t)),
              refusedTools: grant.refused.map((r) => ({ name: r.name, reason: r.detail })),
              model: this.modelFor(role).name,
              limits: this.limitsFor(role),
            },
            metadata: { runId: p.runId, executorId: child.childExecutorId, causationId: child.causationId },
          },
        ])
        .then((r) => r.events.forEach((e) => this.emit(e)));
    }
    const runner = await this.load(child.childExecutorId);
    void runner.run().catch(() => {});
  }

  async childResult(childExecutorId: string): Promise<Outcome> {
    return (await this.load(childExecutorId)).run();
  }

  async childFinished(childExecutorId: string): Promise<Outcome | null> {
    const runner = await this.load(childExecutorId);
    if (runner.fold.done) return runner.state.outcome;
    void runner.run().catch(() => {});
    return null;
  }

  async cancelChildren(parent: ExecutorRunner, reason: string, by: CancelledBy): Promise<void> {
    const s = parent.state;
    const ids = [
      ...Object.entries(s.children).filter(([, c]) => !c.consumed).map(([id]) => id),
      ...Object.values(s.reviews).map((r) => r.reviewerExecutorId),
    ];
    const live = ids.map((id) => this.runners.get(id)).filter((r): r is ExecutorRunner => !!r && !r.fold.done);
    await Promise.all(
      live.map(async (child) => {
        await this.post(child.state.executorId, [cancelRequest(reason, by, "executor")]);
        await child.run().catch(() => {});
      }),
    );
  }

  /**
   * Starts a Reviewer on Main's consumed findings when the run's mode and the
   * review policy say so: `review_requested` in Main's stream, then a Child with
   * the reviewer profile and its own grants, working beside Main.
   */
  async considerReview(runner: ExecutorRunner): Promise<void> {
    const mode = this.options.reviewer ?? "off";
    if (mode === "off" || !runner.role.reviewable) return;
    const s = runner.state;
    const decision = (this.options.reviewPolicy ?? defaultReviewPolicy)({ mode, state: s, now: this.clock.now() });
    if (!decision) return;
    const reviewId = this.newId();
    const reviewerExecutorId = this.newId();
    const [requested] = await runner.record([{ type: "review_requested", data: { reviewId, mode, reviewerExecutorId, subject: decision.subject } }]);
    const findings = Object.entries(s.children)
      .filter(([, c]) => c.handoff)
      .map(([id, c]) => renderConsumedHandoff(id, c.handoff!))
      .join("\n\n");
    await this.admitChild(runner, {
      childExecutorId: reviewerExecutorId,
      toolUseId: null,
      causationId: requested.eventId,
      role: "reviewer",
      input: {
        question: `Review the ${decision.subject} for the question: ${s.task.question}`,
        context: `The handoffs Main has received, as it received them:\n\n${findings}`,
        done_when: "Each issue names the claim, what you checked and what you found, with evidence; also what you checked and found supported, and what you did not check.",
        profile: "reviewer",
      },
    });
  }

  renderReview(outcome: Outcome): string {
    return outcome.kind === "handoff" ? (canonicalize(outcome.handoff) ?? "") : `The review ended without findings (${outcome.kind}).`;
  }
}

export { FINAL as FINAL_EVENT_TYPES };
