import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { EventData, RecordedEvent } from "../../events/index.ts";
import { type SpanRecord, foldTraceEvent, newTraceState, spanIdOf } from "../../telemetry/index.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "../projections/log.ts";

const MAIN = "main-pure";
const CHILD = "child-a";
const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

const turn = (n: number, latencyMs: number): EventData<"turn"> => ({
  turn: n,
  request: { model: "claude-haiku-4-5", messageCount: n, toolNames: [], digest: "d".repeat(64) },
  response: { content: [{ type: "text", text: "secret thoughts" }], stopReason: "tool_use" },
  usage: { inputTokens: 100 * n, outputTokens: 10 * n },
  model: "claude-haiku-4-5-20261001",
  provider: "anthropic",
  scripted: false,
  latencyMs,
});

/** Given a log, the spans each event ends, in order. */
function spansOf(events: RecordedEvent[], options: { captureContent?: boolean } = {}): SpanRecord[] {
  const state = newTraceState("run-pure", options);
  return events.flatMap((e) => foldTraceEvent(state, e));
}

/**
 * Main delegates a Child; the Child calls an effectful tool and its host is
 * killed before the outcome is recorded; another host takes over (run_resumed),
 * marks the call unknown (effect_unknown), and the Child hands off.
 */
function crashedLog(): RecordedEvent[] {
  const log = memoryLog();
  const at = (seconds: number) => (e: RecordedEvent) => Object.assign(e, { recordedAt: new Date(T0 + seconds * 1000) });
  at(-1)(log.fact(MAIN, "run_submitted", { question: "q", options: { trace: { traceId: TRACE } } }));
  at(0)(log.add(MAIN, "executor_admitted", admittedData("main")));
  at(1)(log.add(MAIN, "turn", turn(1, 400)));
  at(1)(log.add(MAIN, "tool_called", { turn: 1, toolUseId: "toolu_parent", tool: "delegate", input: {}, effect: "effectful", childExecutorId: CHILD }));
  at(2)(log.add(CHILD, "executor_admitted", admittedData("child")));
  at(3)(log.add(CHILD, "turn", turn(1, 500)));
  at(3)(log.add(CHILD, "tool_called", { turn: 1, toolUseId: "e1", tool: "record_effect", input: { label: "x" }, effect: "effectful" }));
  // kill -9 here; the next host:
  at(60)(log.fact(MAIN, "run_resumed", { downSince: new Date(T0 + 3000).toISOString() }));
  at(61)(log.add(CHILD, "effect_unknown", { toolUseId: "e1", tool: "record_effect", effect: "effectful", note: "never recorded" }));
  at(61)(log.add(CHILD, "recovered", { fromVersion: 3, unknownEffects: ["e1"], rerun: [] }));
  at(62)(log.add(CHILD, "handoff_committed", { handoff: {}, repairs: 0, forced: false }));
  at(62)(log.add(CHILD, "settled", { outcome: "handed_off" }));
  at(63)(log.add(MAIN, "handoff_consumed", { childExecutorId: CHILD, toolUseId: "toolu_parent", handoffEventId: "h", handoff: {}, rendered: { result: "{}" } }));
  at(64)(log.add(MAIN, "settled", { outcome: "answered", answer: {} }));
  return log.events;
}

describe("spans folded from a run's events", () => {
  const events = crashedLog();
  const spans = spansOf(events);
  const agents = (executor: string) => spans.filter((s) => s.operation === "invoke_agent" && s.attributes["gen_ai.agent.id"] === executor);

  test("an effect of unknown outcome ends its one span as effect_unknown, never as executed", () => {
    const calls = spans.filter((s) => s.attributes["gen_ai.tool.call.id"] === "e1");
    assert.equal(calls.length, 1);
    assert.equal(calls[0].errorType, "effect_unknown");
    assert.equal(calls[0].attributes["ariadne.tool.outcome"], "unknown");
    assert.equal(calls[0].attributes["ariadne.tool.rerun"], undefined);
  });

  test("the segment the crash cut ends interrupted at the executor's last event; the next one links to it, under the same parent", () => {
    for (const executor of [MAIN, CHILD]) {
      const [cut, resumed] = agents(executor);
      assert.equal(cut.errorType, "interrupted");
      assert.equal(cut.end.getTime(), T0 + (executor === MAIN ? 1000 : 3000));
      assert.deepEqual(resumed.links, [cut.spanId]);
      assert.equal(resumed.parentSpanId, cut.parentSpanId);
      assert.equal(resumed.errorType, undefined);
      assert.equal(resumed.start.getTime(), T0 + 60_000);
    }
    const delegate = spans.find((s) => s.attributes["gen_ai.tool.name"] === "delegate")!;
    assert.equal(agents(CHILD)[0].parentSpanId, delegate.spanId);
    assert.equal(delegate.spanId, spanIdOf("run-pure", MAIN, events[3].eventId));
  });

  test("every span is in the run's recorded trace; a chat span starts its latency before its turn was recorded", () => {
    assert.deepEqual(new Set(spans.map((s) => s.traceId)), new Set([TRACE]));
    const chat = spans.find((s) => s.operation === "chat" && s.attributes["gen_ai.agent.id"] === CHILD)!;
    assert.equal(chat.start.getTime(), T0 + 3000 - 500);
    assert.equal(chat.end.getTime(), T0 + 3000);
    assert.equal(chat.name, "chat claude-haiku-4-5");
    assert.equal(chat.attributes["gen_ai.response.model"], "claude-haiku-4-5-20261001");
  });

  test("folded twice, or an event seen twice: the same spans, no more", () => {
    const state = newTraceState("run-pure");
    const once = events.flatMap((e) => foldTraceEvent(state, e));
    assert.deepEqual(events.flatMap((e) => foldTraceEvent(state, e)), []);
    assert.deepEqual(once.map((s) => s.spanId), spansOf(events).map((s) => s.spanId));
  });

  test("message content only when capture is asked for", () => {
    assert.ok(spans.every((s) => s.content === undefined && !JSON.stringify(s.attributes).includes("secret thoughts")));
    const captured = spansOf(events, { captureContent: true }).find((s) => s.operation === "chat")!;
    assert.match(captured.content!["gen_ai.output.messages"], /secret thoughts/);
  });
});
