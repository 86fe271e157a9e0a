import { randomId } from "../core/clock.ts";
import { isConnectionError } from "../core/connectionLoss.ts";
import { isDiskFull } from "../core/diskFull.ts";
import { isConcurrencyError } from "../core/errors.ts";
import { type Draft, type NewEvent, type RecordedEvent, appendWithRetry } from "../events/index.ts";
import { checkedAhead } from "../events/validateEvents.ts";
import type { Model } from "../models/types.ts";
import { DELEGATE_TOOL } from "../tools/index.ts";
import type { RequestContext } from "./request/buildRequest.ts";
import { checkCalls } from "./checkCalls.ts";
import { awaitChildren, collectChildren, startChild } from "./performChildren.ts";
import { type Fact, type InFlight, decide, decideNext, intentKey, lastHandoffAttempt, liveChildrenOf } from "./decide/index.ts";
import { ExecutorActor, type ExecutorActorOptions } from "./fold/executorActor.ts";
import { type ExecutorSnapshot, type ExecutorStatus, foldEvent } from "./fold/executorMachine.ts";
import type { ExecutorState, Outcome } from "./fold/executorState.ts";
import { performTool } from "./performTool.ts";
import { performTurn } from "./performTurn.ts";
import { quoteTexts } from "./quoteTexts.ts";
import type { RoleRecord } from "./request/roles.ts";
import type { RunnerPort } from "./runnerPort.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

/** Appends retried after a version conflict before giving up (each retry first folds what the other writer wrote). */
const MAX_CONFLICTS = 50;

/**
 * Runs one executor as a thin loop: decide the next step from the folded state
 * (decide/), perform its effect, hand what came of it to `decide` as a fact,
 * record the result. Facts from other writers (cancel requests, reminders,
 * budget decisions, reviews) arrive in the same stream; a conflicting append
 * folds them and goes on, it never ends the executor.
 */
export class ExecutorRunner implements RunnerPort {
  /** The live executor: an XState actor of the executor machine, sent each event once it is recorded. */
  readonly fold: ExecutorActor;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  readonly interrupted: Promise<null>;
  private interrupt!: () => void;
  private finished: Promise<Outcome> | null = null;
  /** Intents this process has started; any other recorded intent without an outcome is from before a rebuild. */
  private readonly started = new Set<string>();
  /** Effects under way in this process, so a cancel can name them. */
  readonly inFlight = new Map<string, InFlight>();
  private inFlightAtCancel: InFlight[] = [];
  /** Long effects under way (model call, tool, waiting for Children): a cancel from another process must reach them. */
  private waits = 0;
  /** The newest version of its stream the inbox watch heard of while this runner was busy between waits (Infinity: unknown). */
  private heard = 0;
  /**
   * Outcomes of read-only calls, folded ahead and appended first in this
   * executor's next append, whatever it records: a call that may run again
   * after a crash needs no commit of its own (recovery re-runs an intent
   * without an outcome). Each carries the id it will be stored with.
   */
  private held: readonly NewEvent[] = [];
  /** The fold with the held outcomes applied, for the snapshot and held list it was made from. */
  private ahead: { from: ExecutorSnapshot; held: readonly NewEvent[]; snapshot: ExecutorSnapshot } | null = null;

  constructor(
    readonly services: RuntimeServices,
    readonly role: RoleRecord,
    private readonly ctx: RequestContext,
    private readonly model: Model,
    events: readonly RecordedEvent[],
    options: Pick<ExecutorActorOptions, "inspect"> = {},
  ) {
    this.fold = new ExecutorActor(events, options);
    this.interrupted = new Promise((resolve) => (this.interrupt = () => resolve(null)));
  }

  /** The folded state, with any held outcomes applied (as it will be once they are appended). */
  get state(): ExecutorState {
    return this.holding ? (this.foldedAhead().context.state as ExecutorState) : this.fold.state;
  }

  /** The machine's status, held outcomes applied. */
  get status(): ExecutorStatus {
    return this.holding ? (this.foldedAhead().value as ExecutorStatus) : this.fold.status;
  }

  /** Outcomes are held (a final executor holds none: what it held was never recorded, as after a crash). */
  private get holding(): boolean {
    return this.held.length > 0 && !this.fold.done;
  }

  private foldedAhead(): ExecutorSnapshot {
    const from = this.fold.actor.getSnapshot();
    if (this.ahead?.from === from && this.ahead.held === this.held) return this.ahead.snapshot;
    let snapshot = from;
    let version = this.fold.state.version;
    for (const e of this.held) snapshot = foldEvent(snapshot, heldAsRecorded(e, this.fold.state.streamId, ++version));
    this.ahead = { from, held: this.held, snapshot };
    return snapshot;
  }

  /**
   * Holds the outcome of a read-only call: folded now, appended with this
   * executor's next append. Invalid drafts throw here, as an append would.
   */
  hold(drafts: readonly Draft[]): void {
    const s = this.state;
    // The store's kind of id (a UUID), whatever ids this runtime gives executors.
    const events = drafts.map((d) => ({ ...asEvent(s, d, s.lastEventId), eventId: randomId() }) as NewEvent);
    // Held as stored (the fold sees the payload its append will write), and validated once.
    this.held = [...this.held, ...checkedAhead(events)];
  }

  /** True while the runner waits on an effect that may be long; the runtime then watches its inbox for it. */
  get waiting(): boolean {
    return this.waits > 0 && !this.fold.done;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get cancelling(): boolean {
    return this.abort.signal.aborted;
  }

  /** Runs to a final state (once; later calls share the result). */
  run(): Promise<Outcome> {
    this.finished ??= this.loop();
    return this.finished;
  }

  /** The inbox watch heard its stream reach `version` while it was busy: it reads its stream before its next long wait if it is behind. */
  noticed(version: number): void {
    this.heard = Math.max(this.heard, version);
  }

  /** Another writer appended to this executor's stream: fold it now, so a cancel request aborts what is in flight at once. */
  poke(): Promise<void> {
    const next = this.writes.then(() => this.catchUp());
    this.writes = next.catch(() => {});
    return next;
  }

  /**
   * Appends through this executor's one write queue, then folds what was written.
   * On a version conflict (another writer appended first) it folds what was
   * written and records on top: what it records happened (an effect's result).
   */
  record(drafts: readonly Draft[]): Promise<RecordedEvent[]> {
    return this.append(drafts, "retry") as Promise<RecordedEvent[]>;
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
    await this.append(decide(this.state, fact, this.role), "redecide");
  }

  private append(drafts: readonly Draft[], onConflict: "retry" | "redecide"): Promise<RecordedEvent[] | null> {
    const next = this.writes.then(async () => {
      let sent: readonly NewEvent[] = [];
      const appended = await appendWithRetry(
        this.services.store,
        this.state.streamId,
        async (attempt) => {
          // Someone else wrote first (an inbox fact): fold it, then record on top what happened
          // (an effect's result), or, for a pure decision, write nothing and decide again.
          if (attempt > 1) {
            await this.catchUp();
            if (onConflict === "redecide") return null;
          }
          const s = this.fold.state;
          // Held outcomes go first, as if each had been appended when it was held.
          sent = this.held;
          const after = sent.at(-1)?.eventId ?? s.lastEventId;
          const events = drafts.map((d) => asEvent(s, d, after));
          return { expectedVersion: s.version, events: [...sent, ...events] };
        },
        { maxAttempts: MAX_CONFLICTS + 1 },
      );
      if (appended) {
        this.held = this.held.filter((e) => !sent.includes(e));
        this.absorb(appended.events);
      }
      return appended?.events ?? null;
    });
    this.writes = next.catch(() => {});
    return next;
  }

  private async catchUp(): Promise<void> {
    if (this.fold.done) return;
    const s = this.fold.state;
    this.absorb(await this.services.store.readStream(s.streamId, { fromVersion: s.version + 1 }));
  }

  private absorb(events: readonly RecordedEvent[]): void {
    for (const e of events) {
      this.fold.apply(e);
      this.services.emit(e);
    }
    if (!this.fold.done && this.fold.state.cancelRequest) this.trip();
  }

  /** Aborts every effect in flight (tools see the signal) and wakes any wait. */
  private trip(): void {
    if (this.abort.signal.aborted) return;
    this.inFlightAtCancel = [...this.inFlight.values()];
    this.abort.abort(new Error(this.state.cancelRequest?.reason ?? "cancelled"));
    this.interrupt();
  }

  /** Runs a long effect, counted as a wait. */
  async during<T>(effect: Promise<T>): Promise<T> {
    if (this.heard > this.fold.state.version) void this.poke().catch(() => {});
    this.heard = 0;
    this.waits++;
    try {
      return await effect;
    } finally {
      this.waits--;
    }
  }

  /** A model call or tool run that a cancel ends even if it ignores its AbortSignal; its outcome is then reported as unknown where it matters. */
  abortable<T>(effect: Promise<T>): Promise<T> {
    effect.catch(() => {});
    const aborted = this.interrupted.then((): never => {
      throw this.abort.signal.reason ?? new Error("cancelled");
    });
    return this.during(Promise.race([effect, aborted]));
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

  /** For a role that hands off (or answers with its own evidence): the stored text the quotes of this candidate cite (decide checks them verbatim). */
  private async quotedTexts(candidate: unknown): Promise<ReadonlyMap<string, string> | undefined> {
    const quoting = this.role.ownEvidence ? (candidate as { evidence?: unknown } | null)?.evidence : this.role.resultName === "handoff" ? candidate : undefined;
    if (quoting === undefined) return undefined;
    return quoteTexts(this.services.blobs, this.state, quoting);
  }

  private async step(): Promise<void> {
    const next = decideNext(this.state, this.status, this.role, this.started);
    switch (next.kind) {
      case "cancel":
        // What was in flight has been aborted; Children are asked to stop and waited for; then `cancelled`.
        this.trip();
        await this.services.stopExecutors(liveChildrenOf(this.state), this.state.cancelRequest!.reason, "parent");
        await this.recordFact({ kind: "cancelStopped", inFlight: this.inFlightAtCancel });
        return;
      case "exhaust":
        return this.decided({ kind: "stopped", stop: next.stop, blobTexts: await this.quotedTexts(lastHandoffAttempt(this.state)) });
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
        return this.decided({ kind: "terminalCalled", call: next.call, blobTexts: await this.quotedTexts(next.call.input) });
      case "awaitChildren":
        return awaitChildren(this, next.calls);
      case "settle":
        return this.decided({ kind: "handedOff" });
      case "stuck":
        throw new Error(`executor ${this.state.executorId} ${next.reason}`);
    }
  }
}

/** A draft as this executor appends it: its run and executor, caused by `cause` unless it names its own. */
function asEvent(s: ExecutorState, d: Draft, cause: string | null): NewEvent {
  return { type: d.type, data: d.data, metadata: { runId: s.runId, executorId: s.executorId, causationId: d.causationId ?? cause } } as NewEvent;
}

/** A held event as the fold sees it: its place in the stream is the one its append will give it. */
function heldAsRecorded(e: NewEvent, streamId: string, streamVersion: number): RecordedEvent {
  const m = e.metadata;
  return {
    type: e.type,
    data: e.data,
    schemaVersion: 0,
    eventId: e.eventId!,
    streamId,
    streamVersion,
    globalPosition: Number.NaN,
    recordedAt: new Date(),
    metadata: { runId: m.runId, executorId: m.executorId, causationId: m.causationId ?? null, correlationId: m.correlationId ?? m.runId },
    prevHash: "",
    hash: "",
  } as RecordedEvent;
}
