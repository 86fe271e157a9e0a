import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderLiveView } from "../../cli/live/renderLiveView.ts";
import { fitWidth, visibleWidth } from "../../cli/live/fitWidth.ts";
import { terminalWriter } from "../../cli/live/terminalWriter.ts";
import { type ExecutorProgress, type LiveRunState, liveRun } from "../../projections/index.ts";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const iso = (msBefore: number) => new Date(NOW - msBefore).toISOString();

/** One executor as the progress projection holds it, with only what a case sets differing. */
function executor(id: string, over: Partial<ExecutorProgress>): ExecutorProgress {
  return {
    executorId: id,
    runId: "run-1",
    role: "child",
    parentExecutorId: "m",
    depth: 1,
    profile: null,
    question: "a task",
    model: "scripted:child",
    admittedAt: 1,
    status: "awaitingModel",
    terminal: false,
    turn: 0,
    toolCalls: 0,
    failedAttempts: 0,
    usage: { inputTokens: 0, outputTokens: 0, estimated: false },
    consumedChildren: [],
    lastEvent: { type: "turn", streamVersion: 1, globalPosition: 1, recordedAt: iso(0) },
    outcome: null,
    handoff: null,
    answer: null,
    unknownEffects: [],
    foldError: null,
    ...over,
  };
}

const profile = (id: string) => ({ id, version: 2, sha256: "0".repeat(64) }) as unknown as ExecutorProgress["profile"];
const limits = (turns: number) => ({ reserved: { tokens: 0, costMicros: 0 }, spent: { tokens: 0, costMicros: 0 }, openReservations: 0, settledReservations: 0, refusals: {}, turns: 0, toolCalls: 0, limits: { turns, toolCalls: null, tokens: null } });

/** Main waiting for two Children; one fetching for 3 s with a Child of its own on a model call for 2 s; one handed off. */
function handBuilt(): LiveRunState {
  const s = liveRun.initial();
  s.startedAt = iso(65_000);
  s.lastAt = iso(1_000);
  s.run.lifecycle = { ...s.run.lifecycle, runId: "run-1", mainExecutorId: "m", events: 42 };
  s.run.progress.executors = {
    m: executor("m", { role: "main", parentExecutorId: null, depth: 0, admittedAt: 1, status: "waitingForChildren", turn: 1, toolCalls: 2, usage: { inputTokens: 1234, outputTokens: 300, estimated: false } }),
    c1: executor("c1", { profile: profile("web-explorer"), admittedAt: 5, status: "runningTools", turn: 2, toolCalls: 1, usage: { inputTokens: 2400, outputTokens: 37, estimated: true } }),
    c2: executor("c2", { profile: profile("document-reader"), admittedAt: 6, status: "settled", terminal: true, turn: 3, toolCalls: 2, outcome: { kind: "handoff", reason: null, forced: false } }),
    g: executor("g", { parentExecutorId: "c1", depth: 2, admittedAt: 9, status: "awaitingModel", lastEvent: { type: "executor_admitted", streamVersion: 1, globalPosition: 9, recordedAt: iso(2_000) } }),
  };
  s.run.budget = {
    ...s.run.budget,
    run: { ...s.run.budget.run, spent: { tokens: 400, costMicros: 500_000 }, reserved: { tokens: 100, costMicros: 0 }, caps: { tokens: 1000, costMicros: 2_000_000 } },
    executors: { m: limits(40), c1: limits(15), c2: limits(15) },
  };
  s.tools = { c1: [{ toolUseId: "t1", tool: "web_fetch", since: iso(3_000) }] };
  return s;
}

const frame = (over: Partial<Parameters<typeof renderLiveView>[0]> = {}) =>
  renderLiveView({ state: handBuilt(), now: NOW, tick: 0, width: 120, height: 40, color: false, ...over });

describe("the live run view, drawn from a hand-built fold", () => {
  test("the run line, the budget bar and the executor tree with what each waits on", () => {
    assert.deepEqual(frame(), [
      "⠋ run run-1 · running · 1m05s · 42 events",
      `budget [${"█".repeat(15)}${"░".repeat(15)}] 50% · 500 of 1k tokens · $0.50 of $2.00`,
      "main  ⠋ waiting for 1 Child · turn 1/40 · 1.2k+300 tok · 2 tool calls",
      "├─ child:web-explorer#1  ⠋ web_fetch 3s · turn 2/15 · ~2.4k+37 tok · 1 tool call",
      "│  └─ child:general#3  ⠋ model call 2s · turn 0 · 0+0 tok · 0 tool calls",
      "└─ child:document-reader#2  handed off · turn 3/15 · 0+0 tok · 2 tool calls",
    ]);
  });

  test("the spinner moves with the tick; a run over shows its mark and the time to its last event", () => {
    assert.match(frame({ tick: 1 })[0], /^⠙ run/);
    const s = handBuilt();
    s.run.lifecycle.main = { status: "settled", reason: null, partial: false, at: 40 };
    assert.equal(renderLiveView({ state: s, now: NOW + 3_600_000, tick: 3, width: 120, height: 40, color: false })[0], "✔ run run-1 · settled · 1m04s · 42 events");
  });

  test("the budget bar fills with the share used, and says when no cap is known", () => {
    const s = handBuilt();
    s.run.budget.run.spent = { tokens: 900, costMicros: 0 };
    const full = renderLiveView({ state: s, now: NOW, tick: 0, width: 120, height: 40, color: false })[1];
    assert.equal(full, `budget [${"█".repeat(30)}] 100% · 1k of 1k tokens · $0.00 of $2.00`);
    s.run.budget.run.caps = { tokens: null, costMicros: null };
    assert.equal(renderLiveView({ state: s, now: NOW, tick: 0, width: 120, height: 40, color: false })[1], "budget 1k tokens (no run cap known)");
  });

  test("every line fits the terminal's width (one column kept free), cut with an ellipsis", () => {
    for (const width of [30, 50, 79]) {
      const lines = frame({ width });
      for (const line of lines) assert.ok(visibleWidth(line) <= width - 1, `${width}: ${JSON.stringify(line)}`);
      assert.ok(lines.some((l) => l.endsWith("…")), `${width}: something is cut`);
      // The budget bar narrows before its numbers are cut.
      assert.match(lines[1], /^budget \[[█░]{5,}\]/);
    }
  });

  test("coloured, the same lines with the colour codes counted for nothing; without colour, no escape at all", () => {
    const colored = frame({ color: true, width: 60 });
    assert.ok(colored.some((l) => l.includes("\x1b[")));
    assert.deepEqual(colored.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "")), frame({ width: 60 }));
    assert.ok(frame({ width: 60 }).every((l) => !l.includes("\x1b")));
  });

  test("a tree taller than the terminal is cut to it, saying how much is left out", () => {
    const lines = frame({ height: 5 });
    assert.equal(lines.length, 4);
    assert.equal(lines[3], "… 3 more executor lines (the terminal is too short)");
  });

  test("a queued run says how long it has waited for a worker", () => {
    const s = liveRun.initial();
    s.startedAt = iso(12_000);
    s.run.lifecycle = { ...s.run.lifecycle, runId: "run-2", submitted: true, events: 1 };
    const lines = renderLiveView({ state: s, now: NOW, tick: 2, width: 80, height: 24, color: false, waiting: { text: "queued: waiting for a worker", since: NOW - 7_000 } });
    assert.deepEqual(lines.slice(0, 3), ["⠹ run run-2 · submitted · 12s · 1 events", "⠹ queued: waiting for a worker · 7s", "budget 0 tokens (no run cap known)"]);
  });

  test("fitWidth keeps colour codes whole and resets after a cut", () => {
    assert.equal(fitWidth("abcdef", 4), "abc…");
    assert.equal(fitWidth("\x1b[32mabcdef\x1b[0m", 4), "\x1b[32mabc…\x1b[0m");
    assert.equal(fitWidth("abc", 3), "abc");
  });
});

describe("the terminal writer", () => {
  const stream = () => {
    const writes: string[] = [];
    return { writes, columns: 20, rows: 10, write: (t: string) => writes.push(t) };
  };

  test("each frame moves up over the last one and erases it, in one write; the cursor is hidden, then shown on close", () => {
    const s = stream();
    const w = terminalWriter(s);
    w.draw(["one", "two"]);
    w.draw(["three"]);
    w.close();
    assert.deepEqual(s.writes, ["\x1b[?25lone\ntwo\n", "\r\x1b[2A\x1b[Jthree\n", "\x1b[?25h"]);
  });

  test("a logged line goes above the frame and stays; a line wider than the terminal counts the rows it wraps to", () => {
    const s = stream();
    const w = terminalWriter(s);
    w.draw(["x".repeat(45)]);
    w.log(["kept"]);
    w.draw(["frame"]);
    w.close();
    assert.deepEqual(s.writes, ["\x1b[?25l" + "x".repeat(45) + "\n", "\r\x1b[3A\x1b[Jkept\n", "frame\n", "\x1b[?25h"]);
  });
});
