import type { EventData, EventType, RecordedEvent } from "../events/index.ts";
import { isModelCallError } from "../models/index.ts";
import type { Model, ModelResponse } from "../models/types.ts";
import { DELEGATE_TOOL, type ToolEffect, type ToolOutput, checkToolCall, parseToolInput } from "../tools/index.ts";
import { HANDOFF_TOOL, type HandoffFacts, partialHandoff, validateHandoff } from "../handoff/index.ts";
import { ANSWER_TOOL, validateAnswer } from "./answer.ts";
import { buildRequest, requestDigest, type RequestContext } from "./buildRequest.ts";
import { DelegateInput } from "./delegation.ts";
import { type ExecutorFold, foldExecutor } from "./executorMachine.ts";
import { type Call, type ExecutorState, type Outcome, isBackgroundDelegation } from "./executorState.ts";
import { nudgeToFinish } from "./prompts.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

type Draft = { [T in EventType]: { type: T; data: EventData<T>; causationId?: string } }[EventType];

/**
 * Runs one executor: decides from its folded state, records intent, performs
 * the effect, records the result. Nothing reaches the actor except through the
 * log, and every append names the version the decision was made on.
 */
export class ExecutorDriver {
  readonly fold: ExecutorFold;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private cancelRequest: { reason: string; by: EventData<"cancelled">["by"] } | null = null;
  private finished: Promise<Outcome> | null = null;
  /** Intents this process has started; any other recorded intent without an outcome is from before a rebuild. */
  private readonly started = new Set<string>();

  constructor(
    private readonly services: RuntimeServices,
    private readonly ctx: RequestContext,
    private readonly model: Model,
    events: readonly RecordedEvent[],
  ) {
    this.fold = foldExecutor(events);
  }

  get state(): ExecutorState {
    return this.fold.state;
  }

  /** Runs to a final state (once; later calls share the result). */
  run(): Promise<Outcome> {
    this.finished ??= this.loop();
    return this.finished;
  }

  /** Stops the executor at its next step; in-flight model and tool calls are aborted. */
  cancel(reason: string, by: EventData<"cancelled">["by"]): void {
    if (this.fold.done || this.cancelRequest) return;
    this.cancelRequest = { reason, by };
    this.abort.abort(new Error(reason));
  }

  /** Appends through this executor's one write queue, then folds what was written. */
  record(drafts: Draft[]): Promise<RecordedEvent[]> {
    const next = this.writes.then(async () => {
      const s = this.fold.state;
      const { events } = await this.services.store.append(
        s.streamId,
        s.version,
        drafts.map((d) => ({
          type: d.type,
          data: d.data,
          metadata: { runId: s.runId, executorId: s.executorId, causationId: d.causationId ?? s.lastEventId },
        })) as never,
      );
      for (const e of events) {
        this.fold.apply(e);
        this.services.emit(e);
      }
      return events;
    });
    this.writes = next.catch(() => {});
    return next;
  }

  private async loop(): Promise<Outcome> {
    try {
      await this.reconcileInFlight();
      while (!this.fold.done) {
        // One step at a time per executor: an in-process engine (PGlite) and a zero-latency model
        // would otherwise never let timers, I/O or sibling executors run.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.cancelRequest) {
          await this.record([{ type: "cancelled", data: this.cancelRequest }]);
          break;
        }
        switch (this.fold.status) {
          case "awaitingModel":
            await this.takeTurn();
            break;
          case "runningTools":
          case "waitingForChildren":
            await this.advanceCalls();
            break;
          case "handingOff":
            await this.record([{ type: "settled", data: { outcome: "handed_off" } }]);
            break;
          default:
            throw new Error(`executor ${this.state.executorId} cannot proceed from ${this.fold.status}`);
        }
      }
    } catch (error) {
      if (!this.fold.done && !(error as { code?: string }).code?.startsWith("CONCURRENCY")) {
        await this.record([{ type: "failed", data: { reason: (error as Error).message ?? String(error), kind: "runtime_error" } }]).catch(() => {});
      }
      if (!this.fold.done) throw error;
    } finally {
      await this.services.stopChildrenOf(this, "the parent executor finished");
    }
    return this.state.outcome!;
  }

  /**
   * After a rebuild: a call whose intent was recorded but whose outcome never was
   * is marked unknown and never re-run. A delegate call re-attaches to its Child.
   */
  private async reconcileInFlight(): Promise<void> {
    const inFlight = this.state.calls.filter((c) => c.phase === "called" && c.name !== DELEGATE_TOOL);
    if (inFlight.length === 0) return;
    const fromVersion = this.state.version;
    await this.record(
      inFlight.map((c) => ({
        type: "effect_unknown" as const,
        data: {
          toolUseId: c.toolUseId,
          tool: c.name,
          effect: this.services.effectOf(c.name),
          note: `The outcome of ${c.name} (${c.toolUseId}) was never recorded: the process stopped while it ran. It was not run again; check its effect before relying on it.`,
        },
      })),
    );
    await this.record([{ type: "recovered", data: { fromVersion, unknownEffects: inFlight.map((c) => c.toolUseId) } }]);
  }

  private async takeTurn(): Promise<void> {
    await this.deliverBackgroundHandoffs();
    if (this.cancelRequest) return;
    const s = this.state;
    if (s.repairs > s.limits.maxHandoffRepairs) {
      return this.finishEarly(`${s.role === "main" ? "answer" : "handoff"} not accepted after ${s.repairs} attempts`);
    }
    const refusal = this.services.governance.beforeModelCall(s);
    if (refusal) return this.finishEarly(refusal);

    const request = buildRequest(s, this.ctx);
    const started = performance.now();
    let response: ModelResponse;
    try {
      response = await this.model.complete(request, { signal: this.abort.signal });
    } catch (error) {
      if (this.cancelRequest) return;
      const retryable = isModelCallError(error) ? error.retryable : false;
      await this.record([
        {
          type: "turn_failed",
          data: {
            turn: s.turn + 1,
            attempt: s.failedAttempts + 1,
            kind: isModelCallError(error) ? error.kind : "error",
            message: (error as Error).message ?? String(error),
            retryable,
          },
        },
      ]);
      if (!retryable || this.state.failedAttempts >= s.limits.maxFailedModelCalls) {
        return this.finishEarly(`model call failed ${this.state.failedAttempts} time(s): ${(error as Error).message}`);
      }
      return;
    }
    // The turn and the decisions on its tool uses are one append: intents are
    // recorded before any effect, at the cost of one commit, not one per call.
    const uses = response.content
      .filter((b) => b.type === "tool_use")
      .map((b): Call => ({ toolUseId: b.id, name: b.name, input: b.input, phase: "requested" }));
    const decisions = await this.planCalls(s, s.turn + 1, uses);
    await this.record([
      {
        type: "turn",
        data: {
          turn: s.turn + 1,
          request: {
            model: request.model,
            messageCount: request.messages.length,
            toolNames: request.tools.map((t) => t.name),
            digest: requestDigest(request),
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
    ]);
  }

  /**
   * Moves the turn's calls on: plans any not yet decided, starts the recorded
   * intents this process has not started (tools in parallel, Children admitted),
   * then waits for foreground Children; the terminal call goes last, alone.
   */
  private async advanceCalls(): Promise<void> {
    const open = this.state.calls.filter((c) => c.phase !== "resolved");
    const undecided = open.filter((c) => c.phase === "requested" && !this.isTerminal(c));
    if (undecided.length) {
      await this.record(await this.planCalls(this.state, this.state.turn, undecided));
      return;
    }
    const unstarted = open.filter((c) => c.phase === "called" && !this.started.has(c.toolUseId));
    if (unstarted.length) {
      unstarted.forEach((c) => this.started.add(c.toolUseId));
      await Promise.all(unstarted.map((c) => (c.name === DELEGATE_TOOL ? this.startChild(c) : this.perform(c))));
      return;
    }
    const terminal = open.find((c) => this.isTerminal(c));
    if (terminal && open.length === 1) return this.finishWith(terminal);
    if (open.some((c) => c.name === DELEGATE_TOOL && !isBackgroundDelegation(c))) return this.consumeNextHandoff();
    throw new Error(`executor ${this.state.executorId} has calls in flight it did not start: ${open.map((c) => c.toolUseId).join(", ")}`);
  }

  private isTerminal(c: Pick<Call, "name">): boolean {
    return c.name === (this.state.role === "main" ? ANSWER_TOOL : HANDOFF_TOOL);
  }

  /**
   * Decides a turn's tool uses before any runs: a refusal (not granted, invalid
   * input, governance) or an intent. Pure but for reading profiles; the result
   * is recorded in one append, with the turn itself when called from takeTurn.
   */
  private async planCalls(s: ExecutorState, turn: number, calls: readonly Call[]): Promise<Draft[]> {
    const drafts: Draft[] = [];
    let intents = 0;
    for (const call of calls) {
      if (this.isTerminal(call)) continue;
      const refuse = (reason: EventData<"tool_failed">["reason"], message: string) =>
        drafts.push({ type: "tool_failed", data: { toolUseId: call.toolUseId, tool: call.name, reason, message } });
      const check = checkToolCall(s.grantedTools, { type: "tool_use", id: call.toolUseId, name: call.name, input: call.input });
      if (!check.ok) {
        refuse("not_granted", check.refusal.message);
        continue;
      }
      const plan = call.name === DELEGATE_TOOL ? await this.planDelegation(call) : this.planTool(call);
      if ("problem" in plan) {
        refuse("invalid_input", plan.problem);
        continue;
      }
      const refusal = this.services.governance.beforeToolCall({ ...s, toolCalls: s.toolCalls + intents }, call);
      if (refusal) {
        refuse("governance", `${refusal}. ${s.role === "main" ? "Answer with what you have." : "Hand off what you have; note the rest as gaps."}`);
        continue;
      }
      intents++;
      drafts.push({ type: "tool_called", data: { turn, toolUseId: call.toolUseId, tool: call.name, input: call.input, ...plan } });
    }
    return drafts;
  }

  private planTool(call: Call): { effect: ToolEffect } | { problem: string } {
    const tool = this.services.tools.get(call.name);
    if (!tool) return { problem: `Tool "${call.name}" is not available on this host.` };
    const input = parseToolInput(tool, call.input);
    return input.ok ? { effect: tool.effect } : { problem: input.message };
  }

  private async planDelegation(call: Call): Promise<{ effect: ToolEffect; childExecutorId: string } | { problem: string }> {
    const parsed = DelegateInput.safeParse(call.input);
    if (!parsed.success) return { problem: describeIssues(parsed.error.issues) };
    const problem = await this.services.checkDelegation(parsed.data);
    return problem ? { problem } : { effect: "idempotent", childExecutorId: this.services.newId() };
  }

  /** Runs a tool whose intent is recorded, and records its outcome. */
  private async perform(call: Call): Promise<void> {
    const s = this.state;
    const tool = this.services.tools.get(call.name)!;
    const input = parseToolInput(tool, call.input);
    if (!input.ok) throw new Error(`recorded intent ${call.toolUseId} has input its tool refuses`);
    let output: ToolOutput;
    try {
      output = await tool.runSanitized(input.value, { runId: s.runId, executorId: s.executorId, signal: this.abort.signal });
    } catch (error) {
      const message = `${call.name} failed: ${(error as Error).message ?? String(error)}`;
      if (this.cancelRequest && tool.effect !== "read_only") {
        await this.record([{ type: "effect_unknown", data: { toolUseId: call.toolUseId, tool: call.name, effect: tool.effect, note: message } }]);
      } else {
        const reason = this.cancelRequest ? "cancelled" : "error";
        await this.record([{ type: "tool_failed", data: { toolUseId: call.toolUseId, tool: call.name, reason, message }, causationId: call.intentEventId }]);
      }
      return;
    }
    await this.record([
      { type: "tool_completed", data: { toolUseId: call.toolUseId, tool: call.name, ...output, artifacts: [] }, causationId: call.intentEventId },
    ]);
  }

  /** Admits the Child of a recorded delegate intent (a no-op if it already was) and lets it run. */
  private async startChild(call: Call): Promise<void> {
    const input = DelegateInput.parse(call.input);
    const childExecutorId = call.childExecutorId!;
    await this.services.admitChild(this, { childExecutorId, toolUseId: call.toolUseId, input, causationId: call.intentEventId! });
    if (input.wait === false) {
      const output = JSON.stringify({
        child_executor_id: childExecutorId,
        status: "working in the background",
        note: "Its handoff will be delivered with a later request, once it has finished.",
      });
      await this.record([
        { type: "tool_completed", data: { toolUseId: call.toolUseId, tool: call.name, output, artifacts: [] }, causationId: call.intentEventId },
      ]);
    }
  }

  /**
   * Delivers the handoffs of background Children that have finished. When the
   * model has nothing left to do but wait (it ended its turn without a tool
   * call), waits for the next one rather than spending a turn.
   */
  private async deliverBackgroundHandoffs(): Promise<void> {
    const s = this.state;
    const background = Object.entries(s.children).filter(([, c]) => !c.consumed && !s.calls.some((x) => x.toolUseId === c.toolUseId));
    if (background.length === 0) return;
    const finished = (await Promise.all(background.map(async ([id, c]) => ({ id, c, outcome: await this.services.childFinished(id) })))).filter(
      (f) => f.outcome,
    );
    const lastTurnIdle = s.messages.at(-1)?.content === nudgeToFinish(s.role);
    if (finished.length === 0 && lastTurnIdle) {
      const { id, c, outcome } = await Promise.race(
        background.map(([id, c]) => this.services.childResult(id).then((outcome) => ({ id, c, outcome }))),
      );
      finished.push({ id, c, outcome });
    }
    for (const { id, c, outcome } of finished) await this.recordConsumed(id, c.toolUseId, outcome!);
  }

  private recordConsumed(childExecutorId: string, toolUseId: string, outcome: Outcome) {
    const handoff =
      outcome.kind === "handoff" ? outcome.handoff : partialHandoff(null, `Child ${childExecutorId} ${outcome.kind}: ${"reason" in outcome ? outcome.reason : "no handoff"}`);
    const handoffEventId = "eventId" in outcome ? outcome.eventId : this.state.lastEventId!;
    return this.record([
      { type: "handoff_consumed", data: { childExecutorId, toolUseId, handoffEventId, handoff, handoffHash: outcome.kind === "handoff" ? outcome.hash : undefined }, causationId: handoffEventId },
    ]);
  }

  /** Waits for the next of this turn's children to finish and records what came back. */
  private async consumeNextHandoff(): Promise<void> {
    const waiting = this.state.calls.filter((c) => c.name === DELEGATE_TOOL && c.phase === "called" && !isBackgroundDelegation(c));
    const { call, result, error } = await Promise.race(
      waiting.map((call) =>
        this.services.childResult(call.childExecutorId!).then(
          (result) => ({ call, result, error: null }),
          // A Child that cannot be rebuilt (e.g. its profile changed) fails its delegation, not this executor.
          (error: unknown) => ({ call, result: null, error }),
        ),
      ),
    );
    if (this.cancelRequest) return;
    const childExecutorId = call.childExecutorId!;
    if (!result) {
      await this.record([
        {
          type: "tool_failed",
          data: { toolUseId: call.toolUseId, tool: DELEGATE_TOOL, reason: "error", message: `Child ${childExecutorId} could not continue: ${(error as Error)?.message ?? String(error)}` },
        },
      ]);
    } else if (result.kind === "handoff") {
      await this.record([
        {
          type: "handoff_consumed",
          data: { childExecutorId, toolUseId: call.toolUseId, handoffEventId: result.eventId, handoff: result.handoff, handoffHash: result.hash },
          causationId: result.eventId,
        },
      ]);
    } else {
      const why = result.kind === "answer" ? "returned no handoff" : `${result.kind}: ${result.reason}`;
      await this.record([
        { type: "tool_failed", data: { toolUseId: call.toolUseId, tool: DELEGATE_TOOL, reason: "error", message: `Child ${childExecutorId} ${why}` } },
      ]);
    }
  }

  private async finishWith(call: Call): Promise<void> {
    const s = this.state;
    if (s.role === "child") {
      const verdict = validateHandoff(call.input, handoffFacts(s));
      if (verdict.ok) {
        await this.record([
          { type: "handoff_committed", data: { handoff: verdict.handoff, repairs: s.repairs, forced: false } },
          { type: "settled", data: { outcome: "handed_off" } },
        ]);
      } else {
        await this.record([{ type: "tool_failed", data: { toolUseId: call.toolUseId, tool: call.name, reason: "rejected_result", message: verdict.feedback } }]);
      }
      return;
    }
    const consumed = Object.fromEntries(
      Object.entries(s.children).filter(([, c]) => c.handoff).map(([id, c]) => [id, c.handoff as { findings?: unknown[] }]),
    );
    const verdict = validateAnswer(call.input, consumed);
    if (verdict.ok) await this.record([{ type: "settled", data: { outcome: "answered", answer: verdict.answer } }]);
    else await this.record([{ type: "tool_failed", data: { toolUseId: call.toolUseId, tool: call.name, reason: "rejected_result", message: verdict.feedback } }]);
  }

  /**
   * Limits or repairs ran out. A Child hands off what is valid as partial, low
   * confidence; Main fails with the reason (its Children's handoffs stay in the log).
   */
  private async finishEarly(reason: string): Promise<void> {
    const s = this.state;
    if (s.role === "main") {
      await this.record([{ type: "failed", data: { reason, kind: "limit" } }]);
      return;
    }
    const lastAttempt = [...s.messages]
      .reverse()
      .flatMap((m) => (m.role === "assistant" ? m.content : []))
      .find((b) => b.type === "tool_use" && b.name === HANDOFF_TOOL);
    const verdict = lastAttempt?.type === "tool_use" ? validateHandoff(lastAttempt.input, handoffFacts(s)) : null;
    const salvage = verdict ? (verdict.ok ? verdict.handoff : verdict.salvage) : null;
    await this.record([
      { type: "handoff_committed", data: { handoff: partialHandoff(salvage, reason), repairs: s.repairs, forced: true } },
      { type: "settled", data: { outcome: "handed_off" } },
    ]);
  }
}

export function handoffFacts(s: ExecutorState): HandoffFacts {
  return {
    toolResultIds: new Set(Object.keys(s.toolResults)),
    artifacts: new Map(Object.entries(s.artifacts)),
    citationsSeen: new Set(s.citationsSeen),
  };
}

function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return `Invalid input for delegate: ${issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ")}. Correct these fields and delegate again.`;
}
