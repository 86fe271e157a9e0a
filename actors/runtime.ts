import type { InspectionEvent } from "xstate";
import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import { NotFoundError } from "../core/errors.ts";
import { type Draft, EXECUTOR_STREAM_PREFIX, type EventData, type EventStore, eventsByStream, isExecutorStream, type RecordedEvent, type TaskSpec, executorStreamId, isFinalEvent } from "../events/index.ts";
import type { Governance } from "../governance/port.ts";
import type { BlobStore } from "../sources/types.ts";
import type { Model } from "../models/types.ts";
import { DELEGATE_TOOL, type ToolEffect, ToolRegistry } from "../tools/index.ts";
import { type AdmissionOptions, admit } from "./admission.ts";
import { cancelRequest } from "./decide/cancel.ts";
import { reviewerTask } from "./decide/review.ts";
import type { DelegateInput } from "./request/delegation.ts";
import { type Outcome, type Role } from "./fold/executorState.ts";
import { limitsGovernance } from "./governance.ts";
import { watchInboxes } from "./inboxWatch.ts";
import { type PostResult, postToExecutor } from "./postToExecutor.ts";
import { readTranscript } from "./request/readTranscript.ts";
import { checkDelegation, requestContextOf } from "./request/requestContext.ts";
import { type ReviewMode, type ReviewPolicy, defaultReviewPolicy } from "./decide/reviewPolicy.ts";
import { type Limits, roleFor } from "./request/roles.ts";
import { ExecutorRunner } from "./runner.ts";
import type { RuntimeServices } from "./runtimeServices.ts";
import { Supervision } from "./supervision.ts";
import type { Transcript } from "./request/transcript.ts";


export interface RuntimeOptions {
  store: EventStore;
  /**
   * The model each role talks to, and the model name it asks for (a Reviewer defaults to the Child's).
   * Without a checker model the run has no Checker: `check` refuses (the host then checks nothing before the seal).
   */
  models: { main: Model; child: Model; reviewer?: Model; checker?: Model };
  modelNames: { main: string; child: string; reviewer?: string; checker?: string };
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
  /** One executor with every tool but delegate (the control an evaluation measures isolation against); recorded in Main's admission. */
  singleAgent?: boolean;
  /** XState's inspection API, given every executor's actor (events and snapshots as they are folded). */
  inspect?: (event: InspectionEvent) => void;
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


/**
 * One runtime for Main and every Child: the composition of admission
 * (admission.ts), request contexts (requestContext.ts), supervision of the
 * runners (supervision.ts) and the inbox watch (inboxWatch.ts). It starts and
 * resumes runs, passes facts from outside into executors' inboxes, and lends
 * its runners their services, which name executors by id.
 */
export class Runtime {
  readonly store: EventStore;
  readonly tools: ToolRegistry;
  readonly governance: Governance;
  readonly newId: IdGenerator;
  private readonly catalog: Record<string, ToolEffect>;
  private readonly admission: AdmissionOptions;
  private readonly supervision: Supervision;
  private readonly services: RuntimeServices;

  constructor(private readonly options: RuntimeOptions) {
    this.store = options.store;
    this.tools = options.tools;
    const governance = options.governance ?? limitsGovernance;
    this.governance = typeof governance === "function" ? governance({ store: this.store, post: this.post }) : governance;
    this.newId = options.newId ?? randomId;
    this.catalog = { ...options.tools.catalog(), [DELEGATE_TOOL]: "idempotent" };
    this.admission = {
      store: this.store,
      catalog: this.catalog,
      capabilities: options.tools.capabilities(),
      rootAllowed: options.rootAllowed ?? Object.keys(this.catalog),
      maxDepth: options.maxDepth,
      profilesDir: options.profilesDir,
      tools: options.tools,
      allowedProfiles: options.allowedProfiles,
      limitsFor: (role, singleAgent) => ({ ...roleFor({ role, singleAgent }).defaultLimits, ...options.limits?.[role] }),
      modelNameFor: (role) => this.modelFor(role).name,
      serverToolsFor: (role) => {
        const search = this.modelFor(role).model.webSearch;
        return search ? [{ name: "web_search", ...search }] : [];
      },
      emit: (e) => this.emit(e),
    };
    this.supervision = new Supervision({
      store: this.store,
      post: this.post,
      newRunner: async (events) => {
        const admission = events[0] as RecordedEvent<"executor_admitted">;
        const admitted = admission.data;
        const ctx = await requestContextOf(admission, this.store.blobs, options);
        return new ExecutorRunner(this.services, roleFor(admitted), ctx, this.modelFor(admitted.role).model, events, { inspect: options.inspect });
      },
    });
    const supervision = this.supervision;
    this.services = {
      store: this.store,
      tools: this.tools,
      governance: this.governance,
      newId: this.newId,
      clock: this.clock,
      blobs: options.blobs,
      workspaceRoot: options.workspaceRoot,
      review: { mode: options.reviewer ?? "off", policy: options.reviewPolicy ?? defaultReviewPolicy },
      emit: (e) => this.emit(e),
      effectOf: (tool) => this.catalog[tool] ?? "effectful",
      checkDelegation: (input) => this.checkDelegation(input),
      admitChild: async (parent, child) => {
        const admitted = await admit(this.admission, {
          executorId: child.childExecutorId,
          role: "child",
          parent,
          parentToolUseId: child.toolUseId,
          task: { question: child.input.question, context: child.input.context, doneWhen: child.input.done_when },
          profile: child.input.profile,
          tools: child.input.tools,
          causationId: child.causationId,
        });
        await supervision.start(child.childExecutorId, admitted);
      },
      childResult: (id) => supervision.childResult(id),
      childFinished: (id) => supervision.childFinished(id),
      stopExecutors: (ids, reason, by) => supervision.stopExecutors(ids, reason, by),
      // A review request folded into Main's stream: its Reviewer, a Child with the reviewer profile and its own grants, works beside Main.
      reviewRequested: async (parent, requested) => {
        const input = reviewerTask(parent, requested.data.subject);
        const admitted = await admit(this.admission, {
          executorId: requested.data.reviewerExecutorId,
          role: "reviewer",
          parent,
          parentToolUseId: null,
          task: { question: input.question, context: input.context, doneWhen: input.done_when },
          profile: input.profile,
          causationId: requested.eventId,
        });
        await supervision.start(requested.data.reviewerExecutorId, admitted);
      },
    };
  }

  get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  private modelFor(role: Role): { model: Model; name: string } {
    const { models, modelNames } = this.options;
    return { model: models[role] ?? models.child, name: modelNames[role] ?? modelNames.child };
  }

  /** Whether this runtime starts a Checker on Main's answer (it was given the Checker's model). */
  get checks(): boolean {
    return !!this.options.models.checker;
  }

  /**
   * The run's Checker on Main's answer, run to its end: admitted under Main (caused by Main's
   * `settled`, the answer it checks) unless the log already holds it, as after a crash mid-check,
   * when it is rebuilt from its stream and goes on. One Checker per run.
   */
  async check(runId: string, task: TaskSpec): Promise<{ executorId: string; model: string; outcome: Outcome }> {
    if (!this.checks) throw new Error(`run ${runId}: this runtime has no Checker model`);
    const events = await this.store.readRun(runId);
    const known = events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "checker");
    const main = events.find((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.role === "main");
    const answered = main && events.find((e) => e.type === "settled" && e.metadata.executorId === main.metadata.executorId);
    if (!main || !answered) throw new NotFoundError(`run ${runId} has no answer to check`);
    const executorId = known?.metadata.executorId ?? this.newId();
    let admitted: RecordedEvent[] | null = null;
    if (!known) {
      const parent = (await this.load(main.metadata.executorId)).state;
      admitted = await admit(this.admission, { executorId, role: "checker", parent, parentToolUseId: null, task, causationId: answered.eventId });
    }
    const runner = await this.load(executorId, admitted);
    return { executorId, model: runner.state.model, outcome: await runner.run() };
  }

  /** Admits Main for a question and starts it; Children are admitted as Main delegates. */
  async startRun(question: string, context = "", ids?: { runId: string; mainExecutorId: string }): Promise<RunHandle> {
    // A submitted run already has its ids (runs/submitRun.ts); a direct run gets new ones.
    const runId = ids?.runId ?? this.newId();
    const mainExecutorId = ids?.mainExecutorId ?? this.newId();
    const admitted = await admit(this.admission, { executorId: mainExecutorId, runId, role: "main", task: { question, context, doneWhen: "" }, singleAgent: this.options.singleAgent });
    const runner = await this.load(mainExecutorId, admitted);
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
    // Every live executor is rebuilt before any runs, from the events just read (a stream's in its
    // own order): one that cannot be (its bound profile changed) stops the resume before anything
    // is written, so restoring the file lets the run resume.
    const ended = new Set(events.filter((e) => isFinalEvent(e)).map((e) => e.metadata.executorId));
    const streams = eventsByStream(events);
    const live = admitted.filter((e) => !ended.has(e.metadata.executorId)).map((e) => e.metadata.executorId);
    await Promise.all(live.map((id) => this.load(id, streams.get(executorStreamId(id)))));
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
   * Puts facts in an executor's inbox (postToExecutor) and pokes its runner if
   * it lives in this process, so it folds them now rather than at its next
   * append. This is the `post` governance is given.
   */
  post = async (executorId: string, drafts: readonly Draft[]): Promise<PostResult> => {
    const result = await postToExecutor(this.store, executorId, drafts);
    if (result.ok) {
      result.events.forEach((e) => this.emit(e));
      await this.supervision.get(executorId)?.poke();
    }
    return result;
  };

  /**
   * Pokes this process's runners when other processes post to their inboxes
   * (inboxWatch.ts); with `runId`, only that run's (a worker's hosted run).
   * Returns the function that stops watching.
   */
  watchInboxes(runId?: string): Promise<() => Promise<void>> {
    return watchInboxes(this.store, {
      live: () => this.supervision.live(),
      runnerOf: (streamId) => (isExecutorStream(streamId) ? this.supervision.get(streamId.slice(EXECUTOR_STREAM_PREFIX.length)) : undefined),
      runId,
    });
  }


  /** The runner of an executor, rebuilt from its events (`read`, or its stream) if this process has not seen it yet. */
  load(executorId: string, read?: RecordedEvent[] | null): Promise<ExecutorRunner> {
    return this.supervision.load(executorId, read);
  }

  /** An executor's full transcript, rebuilt from the log and checked against the recorded digests. */
  transcript(executorId: string): Promise<Transcript> {
    return readTranscript(this.store, executorId, this.options);
  }

  emit(event: RecordedEvent): void {
    this.options.onEvent?.(event);
  }

  /** A reason the delegation cannot be admitted in this run (a profile not allowed or not installed), or null. */
  checkDelegation(input: DelegateInput): Promise<string | null> {
    return checkDelegation(input, this.options);
  }
}

