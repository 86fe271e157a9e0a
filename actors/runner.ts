import { isConcurrencyError } from "../core/errors.ts";
import { type NewEvent, type RecordedEvent, appendWithRetry } from "../events/index.ts";
import type { Reservation } from "../governance/port.ts";
import { isModelCallError } from "../models/index.ts";
import type { Model, ModelResponse } from "../models/types.ts";
import { DELEGATE_TOOL, type ToolOutput, parseToolInput } from "../tools/index.ts";
import { buildRequest, canonicalRequest, digestOf, estimateInputTokens, type RequestContext } from "./buildRequest.ts";
import {
  type CallFact,
  type ChildResult,
  type Draft,
  type InFlight,
  decideCall,
  decideCancel,
  decideChildOutcome,
  decideNext,
  decideRecovery,
  decideReview,
  liveChildrenOf,
  renderReview,
  exhaust,
  finish,
  idempotencyKeyOf,
  intentKey,
  screenCall,
  toolCompleted,
  toolThrew,
} from "./decide/index.ts";
import { DelegateInput } from "./delegation.ts";
import { type ExecutorFold, foldExecutor } from "./executorMachine.ts";
import { type Call, type ExecutorState, type Outcome, deliverReminder, deliverReview, isBackgroundDelegation, raiseReminder } from "./executorState.ts";
import type { RoleRecord } from "./roles.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

/** Appends retried after a version conflict before giving up (each retry first folds what the other writer wrote). */
const MAX_CONFLICTS = 50;

/**
 * Runs one executor as a thin loop: decide the next step from the folded state
 * (decide/), perform its effect, record the result. Facts from other writers
 * (cancel requests, reminders, budget decisions, reviews) arrive in the same
 * stream; a conflicting append folds them and goes on, it never ends the executor.
 */
export class ExecutorRunner {
  readonly fold: ExecutorFold;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private readonly interrupted: Promise<null>;
  private interrupt!: () => void;
  private finished: Promise<Outcome> | null = null;
  /** Intents this process has started; any other recorded intent without an outcome is from before a rebuild. */
  private readonly started = new Set<string>();
  /** Effects under way in this process, so a cancel can name them. */
  private readonly inFlight = new Map<string, InFlight>();
  private inFlightAtCancel: InFlight[] = [];
  /** Long effects under way (model call, tool, waiting for Children): a cancel from another process must reach them. */
  private waits = 0;

  constructor(
    private readonly services: RuntimeServices,
    readonly role: RoleRecord,
    private readonly ctx: RequestContext,
    private readonly model: Model,
    events: readonly RecordedEvent[],
  ) {
    this.fold = foldExecutor(events);
    this.interrupted = new Promise((resolve) => (this.interrupt = () => resolve(null)));
  }

  get state(): ExecutorState {
    return this.fold.state;
  }

  /** True while the runner waits on an effect that may be long; the runtime then watches its inbox for it. */
  get waiting(): boolean {
    return this.waits > 0 && !this.fold.done;
  }

  /**
   * Set by the runtime's inbox watcher when the log moved while this runner was
   * busy between waits: it reads its stream before its next long wait.
   */
  stale = false;

  /** Runs a long effect, counted as a wait. */
  private async during<T>(effect: Promise<T>): Promise<T> {
    if (this.stale) {
      this.stale = false;
      void this.poke();
    }
    this.waits++;
    try {
      return await effect;
    } finally {
      this.waits--;
    }
  }

  /**
   * A model call or tool run that a cancel request ends even if it ignores
   * its AbortSignal: the executor stops waiting; the effect's outcome is then
   * reported as unknown where it matters (see toolThrew).
   */
  private abortable<T>(effect: Promise<T>): Promise<T> {
    effect.catch(() => {});
    const aborted = this.interrupted.then((): never => {
      throw this.abort.signal.reason ?? new Error("cancelled");
    });
    return this.during(Promise.race([effect, aborted]));
  }

  get cancelling(): boolean {
    return this.abort.signal.aborted;
  }

  /** Runs to a final state (once; later calls share the result). */
  run(): Promise<Outcome> {
    this.finished ??= this.loop();
    return this.finished;
  }

  /**
   * Another writer appended to this executor's stream: fold it now, so a
   * cancel request aborts what is in flight without waiting for the effect.
   */
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

  /**
   * Records a pure decision. On a version conflict nothing is written: the new
   * facts are folded and the loop decides again from them (a cancel request,
   * say, comes before a plan made without it).
   */
  private decided(drafts: readonly Draft[]): Promise<void> {
    return this.append(drafts, "redecide").then(() => {});
  }

  private append(drafts: readonly Draft[], onConflict: "retry" | "redecide"): Promise<RecordedEvent[] | null> {
    const next = this.writes.then(async () => {
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
          const events = drafts.map(
            (d) => ({ type: d.type, data: d.data, metadata: { runId: s.runId, executorId: s.executorId, causationId: d.causationId ?? s.lastEventId } }) as NewEvent,
          );
          return { expectedVersion: s.version, events };
        },
        { maxAttempts: MAX_CONFLICTS + 1 },
      );
      if (appended) this.absorb(appended.events);
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

  private async loop(): Promise<Outcome> {
    try {
      const recovery = decideRecovery(this.state, (t) => this.services.effectOf(t));
      if (recovery.length) await this.record(recovery);
      while (!this.fold.done) {
        // One step at a time per executor: an in-process engine (PGlite) and a zero-latency model
        // would otherwise never let timers, I/O or sibling executors run.
        await new Promise((resolve) => setImmediate(resolve));
        await this.step();
      }
    } catch (error) {
      if (!this.fold.done && !isConcurrencyError(error)) {
        await this.record([{ type: "failed", data: { reason: (error as Error).message ?? String(error), kind: "runtime_error" } }]).catch(() => {});
      }
      if (!this.fold.done) throw error;
    } finally {
      await this.services.stopExecutors(liveChildrenOf(this.state), "the parent executor finished", "run_settled");
    }
    return this.state.outcome!;
  }

  private async step(): Promise<void> {
    const s = this.state;
    const next = decideNext(s, this.fold.status, this.role, this.started);
    switch (next.kind) {
      case "cancel":
        return this.cancel();
      case "exhaust":
        return this.decided(exhaust(this.role, s, next.stop));
      case "callModel":
        return this.callModel();
      case "plan":
        // Recorded, not re-decided, on a conflict: governance may already have reserved for these intents.
        await this.record(await this.planCalls(s, s.turn, next.calls));
        return;
      case "start":
        next.calls.forEach((c) => this.started.add(intentKey(c)));
        await Promise.all(next.calls.map((c) => (c.name === DELEGATE_TOOL ? this.startChild(c) : this.performTool(c))));
        return;
      case "finish":
        return this.decided(finish(this.role, s, next.call));
      case "awaitChildren":
        return this.awaitChildren(next.calls);
      case "settle":
        return this.decided([{ type: "settled", data: { outcome: "handed_off" } }]);
      case "stuck":
        throw new Error(`executor ${s.executorId} ${next.reason}`);
    }
  }

  /** Stops: what was in flight has been aborted; Children are asked to stop and waited for; then `cancelled`. */
  private async cancel(): Promise<void> {
    this.trip();
    const request = this.state.cancelRequest!;
    await this.services.stopExecutors(liveChildrenOf(this.state), request.reason, "parent");
    await this.record([decideCancel(this.state, this.inFlightAtCancel)]);
  }

  /**
   * One model turn. Background handoffs that arrived are recorded first. The
   * request carries the pending reminders and review advice; governance is
   * asked before the call (a refusal stops the executor with what it has) and
   * settles after it. The deliveries, the turn, the decisions on its tool uses
   * and the settlement are one append: intents are recorded before any effect.
   */
  private async callModel(): Promise<void> {
    if (await this.deliverBackgroundResults()) return;
    await this.considerReview();
    const s = this.state;
    const deliveries = await this.pendingDeliveries(s);
    let preview = deliveries.reduce(
      (state, d) => (d.type === "reminder_delivered" ? deliverReminder(state, d.data.reminderId) : d.type === "review_delivered" ? deliverReview(state, d.data.reviewId, d.data.advice) : state),
      s,
    );
    let request = buildRequest(preview, this.ctx);
    let canonical = canonicalRequest(request);
    const verdict = await this.services.governance.beforeModelCall(s, {
      model: request.model,
      inputTokens: estimateInputTokens(canonical),
      maxTokens: request.maxTokens,
    });
    if (!verdict.ok) return this.decided([...verdict.events, ...exhaust(this.role, s, { limit: verdict.limit, reason: verdict.reason })]);
    // Reminders governance raised for this call go into this call's request (its reservation counted
    // them), so a Main that answers now has seen them; they are recorded delivered with this turn.
    let raisedNow = false;
    for (const e of verdict.events) {
      if (e.type !== "reminder_raised" || preview.reminders[e.data.reminderId]) continue;
      preview = deliverReminder(raiseReminder(preview, e.data.reminderId, e.data.text), e.data.reminderId);
      deliveries.push({ type: "reminder_delivered", data: { reminderId: e.data.reminderId, turn: s.turn + 1 } });
      raisedNow = true;
    }
    if (raisedNow) {
      request = buildRequest(preview, this.ctx);
      canonical = canonicalRequest(request);
    }
    const started = performance.now();
    let response: ModelResponse;
    this.inFlight.set("model", { kind: "model" });
    try {
      response = await this.abortable(this.model.complete(request, { signal: this.abort.signal, deadline: verdict.deadline }));
    } catch (error) {
      await this.recordFailedCall(s, verdict.events, verdict.reservation, error);
      return;
    } finally {
      this.inFlight.delete("model");
    }
    const uses = response.content
      .filter((b) => b.type === "tool_use")
      .map((b): Call => ({ toolUseId: b.id, name: b.name, input: b.input, phase: "requested" }));
    const decisions = await this.planCalls(s, s.turn + 1, uses);
    const settlement = await this.services.governance.afterModelCall(s, verdict.reservation, response.usage);
    await this.record([
      ...verdict.events,
      ...deliveries,
      {
        type: "turn",
        data: {
          turn: s.turn + 1,
          request: {
            model: request.model,
            messageCount: request.messages.length,
            toolNames: request.tools.map((t) => t.name),
            digest: digestOf(canonical),
          },
          response: { content: response.content, stopReason: response.stopReason },
          usage: response.usage,
          model: response.model,
          provider: this.model.provider,
          scripted: response.scripted,
          latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
          ...(response.sanitized && { sanitized: response.sanitized }),
        },
      },
      ...decisions,
      ...settlement,
    ]);
  }

  /** Starts a Reviewer on this executor's consumed findings when the run's mode and policy say so (decideReview). */
  private async considerReview(): Promise<void> {
    const { mode, policy } = this.services.review;
    const drafts = decideReview(this.state, this.role, { mode, policy, now: this.services.clock.now(), newId: this.services.newId });
    if (drafts.length === 0) return;
    const [requested] = await this.record(drafts);
    await this.services.reviewRequested(this.state, requested as RecordedEvent<"review_requested">);
  }

  /** A failed (or aborted) model call: nothing was delivered; the reservation is settled with no usage. */
  private async recordFailedCall(s: ExecutorState, reserved: Draft[], reservation: Reservation | null, error: unknown): Promise<void> {
    const settlement = await this.services.governance.afterModelCall(s, reservation, null);
    if (this.cancelling) {
      if (reserved.length || settlement.length) await this.record([...reserved, ...settlement]);
      return;
    }
    await this.record([
      ...reserved,
      {
        type: "turn_failed",
        data: {
          turn: s.turn + 1,
          attempt: s.failedAttempts + 1,
          kind: isModelCallError(error) ? error.kind : "error",
          message: (error as Error).message ?? String(error),
          retryable: isModelCallError(error) ? error.retryable : false,
        },
      },
      ...settlement,
    ]);
  }

  /**
   * Reminders not yet shown and finished reviews, as the events that deliver
   * them with this turn. Advisory advice reaches the model once; a shadow
   * review's output never does.
   */
  private async pendingDeliveries(s: ExecutorState): Promise<Draft[]> {
    const turn = s.turn + 1;
    const drafts: Draft[] = Object.entries(s.reminders)
      .filter(([, r]) => !r.delivered)
      .map(([reminderId]) => ({ type: "reminder_delivered", data: { reminderId, turn } }));
    for (const [reviewId, review] of Object.entries(s.reviews)) {
      if (review.delivered) continue;
      const outcome = await this.services.childFinished(review.reviewerExecutorId).catch(() => null);
      if (!outcome) continue;
      if (review.mode === "shadow") drafts.push({ type: "review_delivered", data: { reviewId, delivered: false, turn: null } });
      else drafts.push({ type: "review_delivered", data: { reviewId, delivered: true, turn, advice: renderReview(outcome) } });
    }
    return drafts;
  }

  /**
   * Decides a turn's tool uses before any runs: a refusal (not granted,
   * invalid input, governance) or an intent. Governance decides the calls that
   * passed the checks in one call, against the state as recorded (it counts
   * the turn's calls itself); after one refusal it refuses the rest of the turn.
   */
  private async planCalls(s: ExecutorState, turn: number, calls: readonly Call[]): Promise<Draft[]> {
    type Checked = { call: Call; screened: Draft } | { call: Call; inspected: Awaited<ReturnType<ExecutorRunner["inspect"]>> };
    const checked: Checked[] = [];
    for (const call of calls) {
      if (call.name === this.role.terminalTool) continue;
      const notGranted = screenCall(s, call);
      checked.push(notGranted ? { call, screened: notGranted } : { call, inspected: await this.inspect(call) });
    }
    const governed = checked.flatMap((c) => ("inspected" in c && !("problem" in c.inspected) ? [c.call] : []));
    const verdicts = new Map((await this.services.governance.beforeToolCalls(s, governed)).map((v, i) => [governed[i]!.toolUseId, v]));
    return checked.flatMap((c): Draft[] => {
      if ("screened" in c) return [c.screened];
      const { call, inspected } = c;
      if ("problem" in inspected) return decideCall(this.role, turn, call, { kind: "invalid", problem: inspected.problem });
      const verdict = verdicts.get(call.toolUseId);
      if (!verdict) throw new Error(`governance gave no verdict on ${call.toolUseId}`);
      const fact: CallFact = verdict.ok
        ? { kind: "allowed", ...inspected, events: verdict.events }
        : { kind: "refused", limit: verdict.limit, reason: verdict.reason, events: verdict.events };
      return decideCall(this.role, turn, call, fact);
    });
  }

  private inspect(call: Call) {
    return call.name === DELEGATE_TOOL ? this.inspectDelegation(call) : Promise.resolve(this.inspectTool(call));
  }

  private inspectTool(call: Call): { effect: "read_only" | "idempotent" | "effectful" } | { problem: string } {
    const tool = this.services.tools.get(call.name);
    if (!tool) return { problem: `Tool "${call.name}" is not available on this host.` };
    const input = parseToolInput(tool, call.input);
    return input.ok ? { effect: tool.effect } : { problem: input.message };
  }

  private async inspectDelegation(call: Call): Promise<{ effect: "idempotent"; childExecutorId: string } | { problem: string }> {
    const parsed = DelegateInput.safeParse(call.input);
    if (!parsed.success) return { problem: describeIssues(parsed.error.issues) };
    const problem = await this.services.checkDelegation(parsed.data);
    return problem ? { problem } : { effect: "idempotent", childExecutorId: this.services.newId() };
  }

  /** Runs a tool whose intent is recorded, and records its outcome. */
  private async performTool(call: Call): Promise<void> {
    const s = this.state;
    const tool = this.services.tools.get(call.name)!;
    const input = parseToolInput(tool, call.input);
    if (!input.ok) throw new Error(`recorded intent ${call.toolUseId} has input its tool refuses`);
    this.inFlight.set(call.toolUseId, { kind: "tool", toolUseId: call.toolUseId, tool: call.name });
    let output: ToolOutput;
    try {
      const ctx = { runId: s.runId, executorId: s.executorId, signal: this.abort.signal, idempotencyKey: idempotencyKeyOf(call) };
      output = await this.abortable(Promise.resolve(tool.runSanitized(input.value, ctx)));
    } catch (error) {
      await this.record([toolThrew(call, tool.effect, `${call.name} failed: ${(error as Error).message ?? String(error)}`, this.cancelling)]);
      return;
    } finally {
      this.inFlight.delete(call.toolUseId);
    }
    await this.record([toolCompleted(call, output)]);
  }

  /** Admits the Child of a recorded delegate intent (a no-op if it already was) and lets it run. */
  private async startChild(call: Call): Promise<void> {
    const input = DelegateInput.parse(call.input);
    const childExecutorId = call.childExecutorId!;
    await this.services.admitChild(this.state, { childExecutorId, toolUseId: call.toolUseId, input, causationId: call.intentEventId! });
    if (input.wait === false) {
      const output = JSON.stringify({
        child_executor_id: childExecutorId,
        status: "working in the background",
        note: "Its handoff will be delivered with a later request, once it has finished.",
      });
      await this.record([toolCompleted(call, output)]);
    }
  }

  /** Waits for the next foreground Child to finish (or for a cancel request) and records what came back. */
  private async awaitChildren(calls: readonly Call[]): Promise<void> {
    const result = await this.during(
      Promise.race([
        this.interrupted,
        ...calls.map((call) => this.childResult(call.childExecutorId!, call.toolUseId, call.intentEventId!, this.services.childResult(call.childExecutorId!))),
      ]),
    );
    if (result) await this.record([decideChildOutcome(result)]);
  }

  private childResult(childExecutorId: string, toolUseId: string, intentEventId: string, outcome: Promise<Outcome | null>): Promise<ChildResult> {
    // A Child that cannot be rebuilt (e.g. its profile changed) fails its delegation, not this executor.
    return outcome.then(
      (o) => ({ childExecutorId, toolUseId, intentEventId, outcome: o }),
      (error: unknown) => ({ childExecutorId, toolUseId, intentEventId, outcome: null, error }),
    );
  }

  /**
   * Records the results of background Children that have finished. When the
   * model has nothing left to do but wait (it ended its turn without a tool
   * call), waits for the next one rather than spending a turn. True when
   * something was recorded (the next step is decided again).
   */
  private async deliverBackgroundResults(): Promise<boolean> {
    const s = this.state;
    const background = Object.entries(s.children).filter(([, c]) => !c.consumed && !s.calls.some((x) => x.toolUseId === c.toolUseId));
    if (background.length === 0) return false;
    // A background delegate call was answered long ago; a result without an event of its own points at the latest.
    const polled = await Promise.all(background.map(([id, c]) => this.childResult(id, c.toolUseId, s.lastEventId!, this.services.childFinished(id))));
    const finished = polled.filter((r) => r.outcome || r.error !== undefined);
    if (finished.length === 0 && s.messages.at(-1)?.content === this.role.nudge) {
      const next = await this.during(
        Promise.race([this.interrupted, ...background.map(([id, c]) => this.childResult(id, c.toolUseId, s.lastEventId!, this.services.childResult(id)))]),
      );
      if (!next) return true;
      finished.push(next);
    }
    if (finished.length === 0) return false;
    await this.record(finished.map(decideChildOutcome));
    return true;
  }
}

function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return `Invalid input for delegate: ${issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ")}. Correct these fields and delegate again.`;
}
