import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import { NotFoundError } from "../core/errors.ts";
import type { EventData, EventStore, RecordedEvent } from "../events/index.ts";
import { HANDOFF_TOOL, handoffToolSpec } from "../handoff/index.ts";
import type { Model, ToolSpec } from "../models/types.ts";
import { UnknownProfileError, assertBindingMatches, listProfiles, loadProfile, profileBinding } from "../profiles/index.ts";
import { DELEGATE_TOOL, type ToolEffect, ToolRegistry, computeGrant } from "../tools/index.ts";
import { ANSWER_TOOL, answerToolSpec } from "./answer.ts";
import type { RequestContext } from "./buildRequest.ts";
import { type DelegateInput, delegateToolSpec } from "./delegation.ts";
import { ExecutorDriver } from "./executorDriver.ts";
import { type Outcome, streamIdOf } from "./executorState.ts";
import { type Governance, limitsGovernance } from "./governance.ts";
import type { RuntimeServices } from "./runtimeServices.ts";
import { type Transcript, rebuildTranscript } from "./transcript.ts";

type Limits = EventData<"executor_admitted">["limits"];

export interface RuntimeOptions {
  store: EventStore;
  /** The model each role talks to, and the model name it asks for. */
  models: { main: Model; child: Model };
  modelNames: { main: string; child: string };
  tools: ToolRegistry;
  profilesDir?: string;
  /** Tools the root task allows anywhere in the run; default: every registered tool and delegate. */
  rootAllowed?: string[];
  /** Executors at this depth may not delegate; 1 means only Main delegates. */
  maxDepth?: number;
  limits?: { main?: Partial<Limits>; child?: Partial<Limits> };
  maxTokens?: number;
  governance?: Governance;
  clock?: Clock;
  newId?: IdGenerator;
  /** Every event the runtime records, as it is recorded (progress, tracing). */
  onEvent?: (event: RecordedEvent) => void;
}

export interface RunHandle {
  runId: string;
  mainExecutorId: string;
  /** Resolves when Main reaches a final state. */
  result: Promise<Outcome>;
}

const DEFAULT_LIMITS: Record<"main" | "child", Limits> = {
  main: { maxTurns: 12, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
  child: { maxTurns: 12, maxToolCalls: 25, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
};

/**
 * One runtime for Main and every Child: admits executors, hosts their drivers,
 * connects delegations to their Children and rebuilds executors from the log.
 */
export class Runtime implements RuntimeServices {
  readonly store: EventStore;
  readonly tools: ToolRegistry;
  readonly governance: Governance;
  readonly newId: IdGenerator;
  private readonly drivers = new Map<string, ExecutorDriver>();
  private readonly catalog: Record<string, ToolEffect>;
  private readonly rootAllowed: string[];

  constructor(private readonly options: RuntimeOptions) {
    this.store = options.store;
    this.tools = options.tools;
    this.governance = options.governance ?? limitsGovernance;
    this.newId = options.newId ?? randomId;
    this.catalog = { ...options.tools.catalog(), [DELEGATE_TOOL]: "idempotent" };
    this.rootAllowed = options.rootAllowed ?? Object.keys(this.catalog);
  }

  get clock(): Clock {
    return this.options.clock ?? systemClock;
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
    await this.store.append(streamIdOf(mainExecutorId), 0, [
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
          model: this.options.modelNames.main,
          limits: { ...DEFAULT_LIMITS.main, ...this.options.limits?.main },
        },
        metadata: { runId, executorId: mainExecutorId },
      },
    ]).then((r) => r.events.forEach((e) => this.emit(e)));
    const driver = await this.load(mainExecutorId);
    return { runId, mainExecutorId, result: driver.run() };
  }

  /**
   * Rebuilds an executor from its stream and runs it to a final state. A Child's
   * frozen profile binding is checked first: a changed profile refuses redispatch.
   */
  async resume(executorId: string): Promise<Outcome> {
    return (await this.load(executorId)).run();
  }

  /** The driver of an executor, rebuilt from its events if this process has not seen it yet. */
  async load(executorId: string): Promise<ExecutorDriver> {
    const known = this.drivers.get(executorId);
    if (known) return known;
    const events = await this.store.readStream(streamIdOf(executorId));
    if (events.length === 0) throw new NotFoundError(`no executor ${executorId} in the log`);
    const admitted = events[0] as RecordedEvent<"executor_admitted">;
    const ctx = await this.requestContext(admitted.data);
    const again = this.drivers.get(executorId);
    if (again) return again;
    const model = admitted.data.role === "main" ? this.options.models.main : this.options.models.child;
    const driver = new ExecutorDriver(this, ctx, model, events);
    this.drivers.set(executorId, driver);
    return driver;
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
    if (granted.includes(DELEGATE_TOOL)) specs.push(delegateToolSpec(await listProfiles(this.options.profilesDir)));
    specs.push(admitted.role === "main" ? answerToolSpec : handoffToolSpec);
    return { profileContent: profile?.content ?? null, tools: specs, maxTokens: this.options.maxTokens ?? 4096 };
  }

  emit(event: RecordedEvent): void {
    this.options.onEvent?.(event);
  }

  effectOf(tool: string): ToolEffect {
    return this.catalog[tool] ?? "effectful";
  }

  async checkDelegation(input: DelegateInput): Promise<string | null> {
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
    parent: ExecutorDriver,
    child: { childExecutorId: string; toolUseId: string; input: DelegateInput; causationId: string },
  ): Promise<void> {
    const p = parent.state;
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
    // Admission is recorded in the Child's own stream; version 0 makes a repeated admission a no-op.
    const existing = await this.store.streamVersion(streamIdOf(child.childExecutorId));
    if (existing === 0) {
      await this.store.append(streamIdOf(child.childExecutorId), 0, [
        {
          type: "executor_admitted",
          data: {
            role: "child",
            parentExecutorId: p.executorId,
            parentToolUseId: child.toolUseId,
            depth: p.depth + 1,
            task: { question: child.input.question, context: child.input.context, doneWhen: child.input.done_when },
            profile: profileBinding(profile),
            grantedTools: grant.granted.filter((t) => t !== HANDOFF_TOOL && t !== ANSWER_TOOL),
            refusedTools: grant.refused.map((r) => ({ name: r.name, reason: r.detail })),
            model: this.options.modelNames.child,
            limits: { ...DEFAULT_LIMITS.child, ...this.options.limits?.child },
          },
          metadata: { runId: p.runId, executorId: child.childExecutorId, causationId: child.causationId },
        },
      ]).then((r) => r.events.forEach((e) => this.emit(e)));
    }
    const driver = await this.load(child.childExecutorId);
    void driver.run().catch(() => {});
  }

  async childResult(childExecutorId: string): Promise<Outcome> {
    const driver = await this.load(childExecutorId);
    return driver.run();
  }

  async childFinished(childExecutorId: string): Promise<Outcome | null> {
    const driver = await this.load(childExecutorId);
    if (driver.fold.done) return driver.state.outcome;
    void driver.run().catch(() => {});
    return null;
  }

  async stopChildrenOf(parent: ExecutorDriver, reason: string): Promise<void> {
    const children = Object.keys(parent.state.children).map((id) => this.drivers.get(id)).filter((d) => d && !d.fold.done);
    for (const child of children) child!.cancel(reason, "run_settled");
    await Promise.all(children.map((c) => c!.run().catch(() => {})));
  }
}
