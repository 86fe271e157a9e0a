import { isConnectionError } from "../core/connectionLoss.ts";
import { isDiskFull } from "../core/diskFull.ts";
import { isConcurrencyError } from "../core/errors.ts";
import type { Draft, RecordedEvent } from "../events/index.ts";
import type { Model } from "../models/types.ts";
import { DELEGATE_TOOL } from "../tools/index.ts";
import type { RequestContext } from "./request/buildRequest.ts";
import { checkCalls } from "./checkCalls.ts";
import { awaitChildren, collectChildren, startChild } from "./performChildren.ts";
import { type Fact, decide, decideNext, intentKey, lastHandoffAttempt, liveChildrenOf } from "./decide/index.ts";
import type { ExecutorActor, ExecutorActorOptions } from "./fold/executorActor.ts";
import { EffectWaits } from "./effectWaits.ts";
import { ExecutorLog } from "./executorLog.ts";
import type { ExecutorStatus } from "./fold/executorMachine.ts";
import type { ExecutorState, Outcome } from "./fold/executorState.ts";
import { performTool } from "./performTool.ts";
import { performTurn } from "./performTurn.ts";
import { quotedTexts } from "./quoteTexts.ts";
import type { RoleRecord } from "./request/roles.ts";
import type { RunnerPort } from "./runnerPort.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

/**
 * Runs one executor as a thin loop: decide the next step from the folded state
 * (decide/), perform its effect, hand what came of it to `decide` as a fact,
 * record the result. Facts from other writers (cancel requests, reminders,
 * budget decisions, reviews) arrive in the same stream; a conflicting append
 * folds them and goes on, it never ends the executor.
 */
export class ExecutorRunner implements RunnerPort {
  private readonly log: ExecutorLog;
  /** Its long effects and how a cancel reaches them: the signal they are given, the wake-up of every wait, what is in flight. */
  private readonly waits = new EffectWaits(
    () => this.fold.state.version,
    () => this.poke(),
  );
  readonly signal = this.waits.signal;
  readonly inFlight = this.waits.inFlight;
  private finished: Promise<Outcome> | null = null;
  /** Intents this process has started; any other recorded intent without an outcome is from before a rebuild. */
  private readonly started = new Set<string>();

  constructor(
    readonly services: RuntimeServices,
    readonly role: RoleRecord,
    private readonly ctx: RequestContext,
    private readonly model: Model,
    events: readonly RecordedEvent[],
    options: Pick<ExecutorActorOptions, "inspect"> = {},
  ) {
    this.log = new ExecutorLog(services.store, events, options, (recorded) => {
      recorded.forEach((e) => services.emit(e));
      if (!this.fold.done && this.fold.state.cancelRequest) this.trip();
    });
  }

  /** The live executor: an XState actor of the executor machine, sent each event once it is recorded. */
  get fold(): ExecutorActor {
    return this.log.fold;
  }

  /** The folded state, with any held outcomes applied (as it will be once they are appended). */
  get state(): ExecutorState {
    return this.log.state;
  }

  /** The machine's status, held outcomes applied. */
  get status(): ExecutorStatus {
    return this.log.status;
  }

  /** Holds the outcome of a read-only call: folded now, appended with this executor's next append. */
  hold(drafts: readonly Draft[]): void {
    this.log.hold(drafts);
  }

  /** Another writer appended to this executor's stream: fold it now, so a cancel request aborts what is in flight at once. */
  poke(): Promise<void> {
    return this.log.poke();
  }

  /** True while the runner waits on an effect that may be long; the runtime then watches its inbox for it. */
  get waiting(): boolean {
    return this.waits.waiting && !this.fold.done;
  }

  get cancelling(): boolean {
    return this.waits.tripped;
  }

  /** Runs to a final state (once; later calls share the result). */
  run(): Promise<Outcome> {
    this.finished ??= this.loop();
    return this.finished;
  }

  /** The inbox watch heard its stream reach `version` while it was busy: it reads its stream before its next long wait if it is behind. */
  noticed(version: number): void {
    this.waits.noticed(version);
  }

  /**
   * Appends through this executor's one write queue, then folds what was written.
   * On a version conflict (another writer appended first) it folds what was
   * written and records on top: what it records happened (an effect's result).
   */
  record(drafts: readonly Draft[]): Promise<RecordedEvent[]> {
    return this.log.append(drafts, "retry") as Promise<RecordedEvent[]>;
  }

  /** Records what `decide` makes of an effect's outcome (nothing when it decides nothing). */
  async recordFact(fact: Fact): Promise<RecordedEvent[]> {
    const drafts = decide(this.state, fact, this.role);
    return drafts.length ? this.record(drafts) : [];
  }

  /**
   * Records a pure decision. On a version conflict nothing is written: the new
   * facts are folded and the loop decides again from them (a cancel request,
   * say, comes before a plan made without it).
   */
  async decided(fact: Fact): Promise<void> {
    await this.log.append(decide(this.state, fact, this.role), "redecide");
  }

  /** Aborts every effect in flight (tools see the signal) and wakes any wait. */
  private trip(): void {
    this.waits.trip(this.state.cancelRequest?.reason ?? "cancelled");
  }

  untilInterrupted<T>(effect: Promise<T>): Promise<T | null> {
    return this.waits.untilInterrupted(effect);
  }

  during<T>(effect: Promise<T>): Promise<T> {
    return this.waits.during(effect);
  }

  abortable<T>(effect: Promise<T>): Promise<T> {
    return this.waits.abortable(effect);
  }

  private async loop(): Promise<Outcome> {
    let lostDatabase = false;
    try {
      await this.recordFact({ kind: "rebuilt", effectOf: (t) => this.services.effectOf(t) });
      while (!this.fold.done) {
        // One step at a time per executor: an in-process engine (PGlite) and a zero-latency model
        // would otherwise never let timers, I/O or sibling executors run.
        await new Promise((resolve) => setImmediate(resolve));
        await this.step();
      }
    } catch (error) {
      // A lost database (or a full disk under it) is the host's to ride out, never this executor's
      // failure: nothing is recorded, its Children are left as they are, and the host gives the run back.
      if (isConnectionError(error) || isDiskFull(error)) {
        lostDatabase = true;
        throw error;
      }
      if (!this.fold.done && !isConcurrencyError(error)) {
        await this.record([{ type: "failed", data: { reason: (error as Error).message ?? String(error), kind: "runtime_error" } }]).catch(() => {});
      }
      if (!this.fold.done) throw error;
    } finally {
      if (!lostDatabase) await this.services.stopExecutors(liveChildrenOf(this.state), "the parent executor finished", "run_settled");
    }
    return this.state.outcome!;
  }

  private async step(): Promise<void> {
    const next = decideNext(this.state, this.status, this.role, this.started);
    switch (next.kind) {
      case "cancel":
        // What was in flight has been aborted; Children are asked to stop and waited for; then `cancelled`.
        this.trip();
        await this.services.stopExecutors(liveChildrenOf(this.state), this.state.cancelRequest!.reason, "parent");
        await this.recordFact({ kind: "cancelStopped", inFlight: this.waits.inFlightAtCancel });
        return;
      case "exhaust":
        return this.decided({ kind: "stopped", stop: next.stop, blobTexts: await quotedTexts(this.role, this.services.blobs, this.state, lastHandoffAttempt(this.state)) });
      case "collectChildren":
        if (await collectChildren(this, next.children, next.wait)) return;
        return performTurn(this, this.ctx, this.model);
      case "callModel":
        return performTurn(this, this.ctx, this.model);
      case "plan":
        // Recorded, not re-decided, on a conflict: governance may already have reserved for these intents.
        await this.recordFact({ kind: "callsChecked", turn: this.state.turn, calls: await checkCalls(this.services, this.role, this.state, next.calls) });
        return;
      case "start":
        next.calls.forEach((c) => this.started.add(intentKey(c)));
        await Promise.all(next.calls.map((c) => (c.name === DELEGATE_TOOL ? startChild(this, c) : performTool(this, c))));
        return;
      case "finish":
        return this.decided({ kind: "terminalCalled", call: next.call, blobTexts: await quotedTexts(this.role, this.services.blobs, this.state, next.call.input) });
      case "awaitChildren":
        return awaitChildren(this, next.calls);
      case "settle":
        return this.decided({ kind: "handedOff" });
      case "stuck":
        throw new Error(`executor ${this.state.executorId} ${next.reason}`);
    }
  }
}

