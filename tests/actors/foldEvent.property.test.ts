import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ExecutorActor } from "../../actors/fold/executorActor.ts";
import { type Folded, UNADMITTED, foldEvent, foldExecutor } from "../../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../../actors/fold/executorState.ts";
import type { RecordedEvent } from "../../events/index.ts";

/**
 * One fold, one way in: the live actor (XState's fromTransition over
 * foldEvent), foldExecutor and foldEvent stepped by hand (as the runner's held
 * outcomes and the projections step it) must agree on random streams, legal
 * and not (any event type in any state, outcomes for unknown tool uses, turns
 * out of order): the same status and folded state, or the same refusal; and an
 * actor restored from a persisted snapshot midway ends where the rebuilt one does.
 */
const TYPES = [
  "executor_admitted", "turn", "turn", "turn", "turn_failed", "tool_called", "tool_called", "tool_completed", "tool_completed", "tool_failed",
  "effect_unknown", "handoff_consumed", "handoff_consumed", "handoff_committed", "settled", "cancel_requested", "cancelled", "failed",
  "reminder_raised", "reminder_delivered", "review_requested", "review_delivered", "budget_reserved", "budget_settled", "budget_refused", "recovered",
] as const;

const Step = fc.record({ type: fc.constantFrom(...TYPES), pick: fc.nat(3), flag: fc.boolean(), skew: fc.constantFrom(0, 0, 0, 0, 1, -1) });
type Step = typeof Step extends fc.Arbitrary<infer T> ? T : never;

/** An event of the step's type, with data made from the state so far (so most events fold, some do not). */
function eventFor(step: Step, s: ExecutorState | null, version: number, role: "main" | "child"): RecordedEvent {
  const open = s?.calls ?? [];
  const toolUseId = open[step.pick % Math.max(1, open.length)]?.toolUseId ?? `toolu_${step.pick}`;
  const childIds = Object.keys(s?.children ?? {});
  const childExecutorId = childIds[step.pick % Math.max(1, childIds.length)] ?? `child-${step.pick}`;
  const reminderId = Object.keys(s?.reminders ?? {})[0] ?? `rem-${step.pick}`;
  const reviewId = Object.keys(s?.reviews ?? {})[0] ?? `rev-${step.pick}`;
  const turn = (s?.turn ?? 0) + 1 + step.skew;
  const data: Record<string, unknown> = (() => {
    switch (step.type) {
      case "executor_admitted":
        return {
          role, parentExecutorId: role === "main" ? null : "main-1", parentToolUseId: role === "main" ? null : "toolu_d", depth: role === "main" ? 0 : 1,
          task: { question: "q", context: "c", doneWhen: "d" }, profile: null, grantedTools: ["lookup", "delegate"], refusedTools: [], model: "m",
          limits: { maxTurns: 8, maxToolCalls: 8, maxHandoffRepairs: 2, maxFailedModelCalls: 2 },
          rendered: { task: "q\n\nc", nudge: "n", reachable: [] }, requestVersion: "v",
        };
      case "turn": {
        const uses = Array.from({ length: step.pick % 3 }, (_, i) => ({
          type: "tool_use", id: `toolu_${version}_${i}`, name: step.flag && i === 0 ? "delegate" : "lookup",
          input: step.flag && i === 0 ? { question: "q", wait: step.skew !== 0 ? false : undefined } : { key: "k" },
        }));
        return { turn, request: {}, response: { content: [{ type: "text", text: "t" }, ...uses], stopReason: "end_turn" }, usage: {}, model: "m", provider: "scripted", scripted: true, latencyMs: 0 };
      }
      case "turn_failed":
        return { turn, attempt: 1, kind: "error", message: "boom", retryable: step.flag };
      case "tool_called": {
        const call = open.find((c) => c.toolUseId === toolUseId);
        return { turn: s?.turn ?? 0, toolUseId, tool: call?.name ?? "lookup", input: call?.input ?? {}, effect: "read_only", ...(call?.name === "delegate" ? { childExecutorId: `child-${version}` } : {}) };
      }
      case "tool_completed":
        return { toolUseId, tool: "lookup", output: step.flag ? "seen [[corpus:doc#p1]]" : "out", artifacts: step.pick === 3 ? [{ id: "a1", path: "p", sha256: "s" }] : [] };
      case "tool_failed":
        return { toolUseId, tool: "lookup", reason: (["invalid", "governance", "rejected_result", "error"] as const)[step.pick], message: "no", ...(step.pick === 1 ? { limit: "maxToolCalls" } : {}) };
      case "effect_unknown":
        return { toolUseId, tool: "lookup", note: "unknown" };
      case "handoff_consumed": {
        const child = s?.children[childExecutorId];
        return step.flag
          ? { childExecutorId, toolUseId: child?.toolUseId ?? toolUseId, childEnded: { outcome: "failed", reason: "r" }, rendered: { result: "ended", text: "ended" } }
          : { childExecutorId, toolUseId: child?.toolUseId ?? toolUseId, handoff: { findings: [{ claim: "x" }] }, rendered: step.pick === 0 ? { text: "h" } : { result: "h", text: "h" } };
      }
      case "handoff_committed":
        return { handoff: { findings: [] }, forced: step.flag };
      case "settled":
        return step.flag ? { outcome: "answered", answer: { summary: "s" } } : { outcome: "handed_off" };
      case "cancel_requested":
        return { reason: "stop", by: "user", scope: step.flag ? "run" : "executor" };
      case "cancelled":
        return { reason: "stop", by: "user" };
      case "failed":
        return { reason: "bad", kind: "runtime_error" };
      case "reminder_raised":
        return { reminderId: `rem-${step.pick}`, text: "remember" };
      case "reminder_delivered":
        return { reminderId, turn, rendered: step.flag ? null : "[reminder] remember" };
      case "review_requested":
        return { reviewId: `rev-${step.pick}`, mode: step.flag ? "advisory" : "shadow", reviewerExecutorId: "rev-x", subject: "s" };
      case "review_delivered":
        return step.flag ? { reviewId, delivered: true, turn, advice: "do better", rendered: "[advice] do better" } : { reviewId, delivered: false, turn: null };
      default:
        return {};
    }
  })();
  return {
    eventId: `ev-${version}`, streamId: "executor-x", streamVersion: version + step.skew * (step.type === "recovered" ? 1 : 0), type: step.type, schemaVersion: 1,
    data, metadata: { runId: "run-1", executorId: "x", causationId: null, correlationId: "run-1" },
    recordedAt: new Date(0), globalPosition: version, prevHash: "", hash: `h${version}`,
  } as unknown as RecordedEvent;
}

function outcome(f: () => Folded): { folded: Folded } | { error: string } {
  try {
    return { folded: f() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const streamOf = (steps: Step[], role: "main" | "child"): RecordedEvent[] => {
  // Each event is made from the state so far (as the generator needs), folded by hand; the stream stops at the first refusal.
  const events: RecordedEvent[] = [];
  let f: Folded = UNADMITTED;
  for (const [i, step] of steps.entries()) {
    const event = eventFor(step, f.state, i + 1, role);
    events.push(event);
    try {
      f = foldEvent(f, event);
    } catch {
      break;
    }
  }
  return events;
};

test("property: the live actor, foldExecutor and foldEvent by hand fold every stream alike, refusals included", () => {
  fc.assert(
    fc.property(fc.array(Step, { minLength: 1, maxLength: 40 }), fc.constantFrom("main" as const, "child" as const), fc.nat(40), (steps, role, cut) => {
      const events = streamOf(steps, role);
      const byHand = outcome(() => events.reduce(foldEvent, UNADMITTED));
      const running = outcome(() => {
        const fold = foldExecutor(events);
        return { status: fold.status, state: fold.state };
      });
      const live = outcome(() => {
        const actor = new ExecutorActor(events);
        return actor.folded;
      });
      assert.deepEqual(live, byHand);
      // foldExecutor reads the state, which throws before an admission: compare where there is one.
      if ("folded" in byHand && byHand.folded.state) assert.deepEqual(running, byHand);
      if ("error" in byHand) assert.deepEqual(running, byHand);
      // Restored from a persisted snapshot (as JSON) at any point, then the rest: where the rebuilt actor ends.
      const at = Math.min(cut, events.length);
      const head = outcome(() => new ExecutorActor(events.slice(0, at)).folded);
      if ("folded" in head) {
        const persisted = JSON.parse(JSON.stringify(new ExecutorActor(events.slice(0, at)).persisted()));
        const restored = outcome(() => new ExecutorActor(events.slice(at), { snapshot: persisted }).folded);
        assert.deepEqual(JSON.parse(JSON.stringify(restored)), JSON.parse(JSON.stringify(byHand)));
      }
    }),
    { numRuns: 400 },
  );
});
