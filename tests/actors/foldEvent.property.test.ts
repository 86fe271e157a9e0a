import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ExecutorSnapshot, foldEvent, initialExecutorSnapshot, machineTransition } from "../../actors/fold/executorMachine.ts";
import type { ExecutorState } from "../../actors/fold/executorState.ts";
import type { RecordedEvent } from "../../events/index.ts";

/**
 * foldEvent replays cached steps of the machine instead of running XState's
 * transition for every event. Random streams, legal and not (any event type in
 * any state, outcomes for unknown tool uses, turns out of order), must leave
 * foldEvent exactly where XState's own transition leaves it: the same status,
 * state nodes and folded state, or the same refusal.
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
          ? { childExecutorId, toolUseId: child?.toolUseId ?? toolUseId, childEnded: { outcome: "failed", reason: "r" } }
          : { childExecutorId, toolUseId: child?.toolUseId ?? toolUseId, handoff: { findings: [{ claim: "x" }] } };
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
        return { reminderId, turn };
      case "review_requested":
        return { reviewId: `rev-${step.pick}`, mode: step.flag ? "advisory" : "shadow", reviewerExecutorId: "rev-x", subject: "s" };
      case "review_delivered":
        return step.flag ? { reviewId, delivered: true, turn, advice: "do better" } : { reviewId, delivered: false, turn: null };
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

/** Everything of a snapshot a reader can see. */
const visible = (s: ExecutorSnapshot) => ({
  value: s.value, status: s.status, nodes: s._nodes.map((n) => n.id), tags: [...s.tags], children: s.children, historyValue: s.historyValue,
  output: s.output, error: s.error, context: s.context,
});

function outcome(f: () => ExecutorSnapshot): { snapshot: ExecutorSnapshot } | { error: string } {
  try {
    return { snapshot: f() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

test("property: foldEvent's cached steps leave every stream where XState's own transition does", () => {
  const reached = new Set<string>();
  fc.assert(
    fc.property(fc.constantFrom("main" as const, "child" as const), fc.array(Step, { minLength: 1, maxLength: 40 }), (role, steps) => {
      let cached = initialExecutorSnapshot();
      let machine = initialExecutorSnapshot();
      // Most streams start with their admission.
      const all: Step[] = steps[0].pick === 0 ? steps : [{ type: "executor_admitted", pick: 0, flag: false, skew: 0 }, ...steps];
      for (const [i, step] of all.entries()) {
        const event = eventFor(step, machine.context.state, (machine.context.state?.version ?? 0) + 1, role);
        const a = outcome(() => foldEvent(cached, event));
        const b = outcome(() => machineTransition(machine, event));
        if ("error" in b) {
          assert.deepEqual(a, b, `event ${i} (${event.type})`);
          // A refused event leaves the stream as it was; a final state refuses everything after it.
          continue;
        }
        assert.ok("snapshot" in a, `event ${i} (${event.type}): ${"error" in a ? a.error : ""}`);
        assert.deepEqual(visible(a.snapshot), visible(b.snapshot), `event ${i} (${event.type})`);
        cached = a.snapshot;
        machine = b.snapshot;
        reached.add(String(machine.value));
        if (machine.status === "done") break;
      }
    }),
    { numRuns: 1500 },
  );
  // The streams reach every state the machine rests in, so every kind of step was replayed.
  assert.deepEqual([...reached].sort(), ["awaitingModel", "cancelled", "failed", "handingOff", "runningTools", "settled", "waitingForChildren"]);
});
