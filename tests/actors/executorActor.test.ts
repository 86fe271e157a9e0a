import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { InspectionEvent } from "xstate";
import { ExecutorActor, foldExecutor } from "../../actors/index.ts";
import { admittedData, recorded, textTurn } from "./fixtures.ts";

const stream = [
  recorded("exec-live", 1, "executor_admitted", admittedData("child")),
  recorded("exec-live", 2, "turn", textTurn(1)),
  recorded("exec-live", 3, "turn_failed", { turn: 2, attempt: 1, kind: "overloaded", message: "busy", retryable: true }),
  recorded("exec-live", 4, "turn", textTurn(2)),
];

describe("the live executor is an XState actor of the executor machine", () => {
  test("given a stream, when the actor is rebuilt from it, then it is where the one fold leaves the stream", () => {
    const live = new ExecutorActor(stream);
    const folded = foldExecutor(stream);
    assert.deepEqual({ status: live.status, state: live.state }, { status: folded.status, state: folded.state });
  });

  test("given a snapshot persisted as JSON, when restored and sent the tail, then it equals the actor rebuilt from the whole stream", () => {
    const head = new ExecutorActor(stream.slice(0, 2));
    const persisted = JSON.parse(JSON.stringify(head.persisted()));
    const restored = new ExecutorActor(stream.slice(2), { snapshot: persisted });
    const rebuilt = new ExecutorActor(stream);
    assert.deepEqual({ status: restored.status, state: restored.state }, { status: rebuilt.status, state: rebuilt.state });
  });

  test("given an inspector, when events are sent, then XState's inspection API sees each of them", () => {
    const seen: string[] = [];
    new ExecutorActor(stream, { inspect: (e: InspectionEvent) => void (e.type === "@xstate.event" && seen.push(e.event.type)) });
    assert.deepEqual(seen.filter((t) => !t.startsWith("xstate.")), ["executor_admitted", "turn", "turn_failed", "turn"]);
  });

  test("given an event the machine refuses, when sent, then it throws naming it, and so does every later event", () => {
    const live = new ExecutorActor(stream.slice(0, 2));
    assert.throws(() => live.apply(recorded("exec-live", 3, "tool_completed", { toolUseId: "t", tool: "x", output: "o", artifacts: [], sources: [] })), /tool_completed \(v3\) cannot happen to exec-live/);
    assert.throws(() => live.apply(stream[2]!), /tool_completed \(v3\)/);
  });

  test("given a final actor, when another event is sent, then it is refused as the fold refuses it", () => {
    const settled = [...stream, recorded("exec-live", 5, "failed", { reason: "x", kind: "runtime_error" })];
    const live = new ExecutorActor(settled);
    assert.equal(live.done, true);
    assert.throws(() => live.apply(recorded("exec-live", 6, "turn", textTurn(3))), /already failed/);
  });
});
