import { test } from "node:test";
import assert from "node:assert/strict";
import { foldAll, liveRun, toolsInFlight } from "../../projections/index.ts";
import { memoryLog } from "./log.ts";

const called = (toolUseId: string, tool: string) => ({ turn: 1, toolUseId, tool, input: {}, effect: "read_only" as const });

test("tools in flight: a call opens with its intent and closes with its outcome (completed, failed, unknown) or the executor's end", () => {
  const log = memoryLog();
  log.add("a", "tool_called", called("t1", "web_fetch"));
  log.add("a", "tool_called", called("t2", "web_search"));
  log.add("b", "tool_called", called("t3", "compute"));
  log.add("a", "tool_completed", { toolUseId: "t1", tool: "web_fetch", output: "page", artifacts: [], sources: [] });
  // Another stream's fact names no executor stream: nothing changes.
  log.fact("a", "run_interrupted", { reason: "x", by: "operator", inFlight: ["t2"] });
  const open = foldAll(toolsInFlight, log.events);
  assert.deepEqual(Object.fromEntries(Object.entries(open).map(([id, calls]) => [id, calls.map((c) => c.tool)])), { a: ["web_search"], b: ["compute"] });
  log.add("a", "effect_unknown", { toolUseId: "t2", tool: "web_search", effect: "read_only", note: "stopped" });
  log.add("b", "failed", { reason: "boom", kind: "error" });
  assert.deepEqual(foldAll(toolsInFlight, log.events), { a: [], b: [] });
});

test("the live run fold keeps the first and last event times beside the run's projections", () => {
  const log = memoryLog();
  log.add("a", "tool_called", called("t1", "web_fetch"));
  log.add("a", "tool_completed", { toolUseId: "t1", tool: "web_fetch", output: "page", artifacts: [], sources: [] });
  const state = foldAll(liveRun, log.events);
  assert.equal(state.startedAt, log.events[0]!.recordedAt.toISOString());
  assert.equal(state.lastAt, log.events[1]!.recordedAt.toISOString());
  assert.equal(state.run.lifecycle.events, 2);
  assert.deepEqual(state.tools, { a: [] });
});

const turnWith = (turn: number, uses: [string, string][]) =>
  ({
    turn,
    request: { model: "m", messageCount: turn, toolNames: [], digest: String(turn).repeat(64) },
    response: { content: uses.map(([id, name]) => ({ type: "tool_use", id, name, input: {} })), stopReason: "tool_use" },
    usage: { inputTokens: 1, outputTokens: 1 },
    model: "m",
    provider: "scripted",
    scripted: true,
    latencyMs: 1,
  }) as never;

test("tools in flight: a read-only call recorded as one row is in flight from its turn until that row; a handoff closes the finishing turn", () => {
  const log = memoryLog();
  log.add("a", "turn", turnWith(1, [["t1", "web_fetch"], ["t2", "write_file"]]));
  // The write's intent is recorded with the turn; the fetch's is not (it will ride with its outcome).
  log.add("a", "tool_called", { turn: 1, toolUseId: "t2", tool: "write_file", input: {}, effect: "idempotent" });
  const tools = () => Object.fromEntries(Object.entries(foldAll(toolsInFlight, log.events)).map(([id, calls]) => [id, calls.map((c) => c.tool)]));
  assert.deepEqual(tools(), { a: ["web_fetch", "write_file"] });
  assert.equal(foldAll(toolsInFlight, log.events).a[0].since, log.events[0].recordedAt.toISOString(), "since its turn");
  log.add("a", "tool_completed", { toolUseId: "t1", tool: "web_fetch", output: "page", artifacts: [], sources: [], intent: { turn: 1, input: {}, effect: "read_only" } });
  assert.deepEqual(tools(), { a: ["write_file"] });
  log.add("a", "tool_completed", { toolUseId: "t2", tool: "write_file", output: "ok", artifacts: [], sources: [] });
  log.add("a", "turn", turnWith(2, [["t3", "handoff"]]));
  assert.deepEqual(tools(), { a: ["handoff"] });
  log.add("a", "handoff_committed", { handoff: {}, repairs: 0, forced: false });
  assert.deepEqual(tools(), { a: [] });
});
