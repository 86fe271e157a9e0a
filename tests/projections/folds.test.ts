import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { EventData, RecordedEvent } from "../../events/index.ts";
import { budget, executorProgress, executorTree, foldAll, foldRun, orphansOf, reminders, remindersByExecutor, runState, runStatus, runView } from "../../projections/index.ts";
import { admittedData, handoffInput, textTurn } from "../actors/fixtures.ts";
import { memoryLog } from "./log.ts";

const MAIN = "main-1";
const CHILD = "child-1";

function toolTurn(turn: number, toolUseId: string, name = "search_corpus", input: unknown = { query: "fees" }): EventData<"turn"> {
  const t = textTurn(turn);
  return { ...t, response: { content: [{ type: "tool_use", id: toolUseId, name, input }], stopReason: "tool_use" }, usage: { inputTokens: 100, outputTokens: 20 } };
}

/** Main delegates one Child, which searches once and hands off; Main answers. */
function delegatedRun() {
  const log = memoryLog();
  log.add(MAIN, "executor_admitted", admittedData("main", { parentExecutorId: null, grantedTools: ["delegate"], limits: { maxTurns: 12, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 } }));
  log.add(MAIN, "turn", toolTurn(1, "toolu_d", "delegate", { question: "q", context: "", done_when: "", profile: "web-explorer" }));
  log.add(MAIN, "tool_called", { turn: 1, toolUseId: "toolu_d", tool: "delegate", input: {}, effect: "idempotent", childExecutorId: CHILD });
  log.add(CHILD, "executor_admitted", admittedData("child", { parentExecutorId: MAIN, profile: { id: "web-explorer", version: "1", sha256: "a".repeat(64) } }));
  log.add(CHILD, "turn", toolTurn(1, "toolu_s"));
  log.add(CHILD, "tool_called", { turn: 1, toolUseId: "toolu_s", tool: "search_corpus", input: {}, effect: "read_only" });
  log.add(CHILD, "tool_completed", { toolUseId: "toolu_s", tool: "search_corpus", output: "found [c1]", artifacts: [], sources: [] });
  return log;
}

function childFinishes(log: ReturnType<typeof memoryLog>, turn = 2) {
  const handoff = handoffInput("done", [{ claim: "c", evidence: { toolResults: ["toolu_s"], citations: ["c1"] }, confidence: "medium" }]);
  log.add(CHILD, "turn", toolTurn(turn, "toolu_h", "handoff", handoff));
  log.add(CHILD, "handoff_committed", { handoff, repairs: 0, forced: false });
  log.add(CHILD, "settled", { outcome: "handed_off" });
  return handoff;
}

describe("executor progress", () => {
  test("given a Child mid-run, then its turn, tool calls, state and last event come from the executor fold", () => {
    const log = delegatedRun();
    const state = foldAll(executorProgress, log.events);
    const child = state.executors[CHILD];
    assert.equal(child.status, "awaitingModel");
    assert.equal(child.turn, 1);
    assert.equal(child.toolCalls, 1);
    assert.deepEqual(child.usage, { inputTokens: 100, outputTokens: 20, estimated: true });
    assert.equal(child.lastEvent.type, "tool_completed");
    assert.equal(child.lastEvent.streamVersion, 4);
    assert.equal(child.terminal, false);
    assert.equal(state.executors[MAIN].status, "waitingForChildren");
    assert.ok(state.machines[CHILD], "a live executor keeps its fold snapshot");
  });

  test("given the Child hands off and settles, then it is terminal with its handoff, and its snapshot is dropped", () => {
    const log = delegatedRun();
    const handoff = childFinishes(log);
    const state = foldAll(executorProgress, log.events);
    const child = state.executors[CHILD];
    assert.equal(child.status, "settled");
    assert.equal(child.terminal, true);
    assert.deepEqual(child.handoff, handoff);
    assert.deepEqual(child.outcome, { kind: "handoff", reason: null, forced: false });
    assert.equal(state.machines[CHILD], undefined);
  });

  test("an event the executor fold refuses is reported on that executor, and the others go on", () => {
    const log = delegatedRun();
    // A tool outcome for a call that was never made cannot happen.
    log.add(CHILD, "tool_completed", { toolUseId: "toolu_never", tool: "search_corpus", output: "", artifacts: [], sources: [] });
    log.add(MAIN, "reminder_raised", { reminderId: "r", key: "k", text: "t", facts: {} });
    const state = foldAll(executorProgress, log.events);
    assert.match(state.executors[CHILD].foldError ?? "", /tool_completed v5/);
    assert.equal(state.executors[CHILD].turn, 1, "the progress stops where the fold refused");
    assert.equal(state.executors[MAIN].foldError, null);
    assert.equal(state.executors[MAIN].lastEvent.type, "reminder_raised");
  });

  test("event types the executor fold does not know only move the last event", () => {
    const log = delegatedRun();
    log.fact(CHILD, "something_new", { x: 1 }, `executor-${CHILD}`);
    const state = foldAll(executorProgress, log.events);
    assert.equal(state.executors[CHILD].foldError, null);
    assert.equal(state.executors[CHILD].lastEvent.type, "something_new");
    assert.equal(state.executors[CHILD].status, "awaitingModel");
  });

  test("the tree nests Children under their parent with role, profile and state; orphans are non-terminal under a final parent", () => {
    const log = delegatedRun();
    log.add(MAIN, "cancelled", { reason: "operator", by: "operator" });
    const progress = foldAll(executorProgress, log.events);
    const [root, ...others] = executorTree(progress);
    assert.equal(others.length, 0);
    assert.equal(root.executorId, MAIN);
    assert.equal(root.status, "cancelled");
    assert.deepEqual(
      root.children.map((c) => [c.executorId, c.role, c.profile, c.status]),
      [[CHILD, "child", "web-explorer", "awaitingModel"]],
    );
    assert.deepEqual(orphansOf(progress, false), [CHILD]);
  });
});

describe("budget", () => {
  test("given reservations and settlements, then reserved is what is open and spent is what settled, per executor and per run", () => {
    const log = delegatedRun();
    log.fact(MAIN, "run_submitted", { caps: { tokens: 10_000, costMicros: 5_000_000 } });
    log.add(CHILD, "budget_reserved", { reservationId: "r1", purpose: "model", amount: { tokens: 4_000, costMicros: 900, toolCalls: 0 } as never });
    log.add(MAIN, "budget_reserved", { reservationId: "r2", purpose: "model", amount: { tokens: 3_000 } });
    log.add(CHILD, "budget_settled", { reservationId: "r1", actual: { tokens: 1_200, costMicros: 300 } as never });
    const view = runView(foldRun(log.events)).budget;
    assert.deepEqual(view.run.spent, { tokens: 1_200, costMicros: 300 });
    assert.deepEqual(view.run.reserved, { tokens: 3_000, costMicros: 0 });
    assert.deepEqual(view.run.left, { tokens: 10_000 - 1_200 - 3_000, costMicros: 5_000_000 - 300 });
    assert.equal(view.run.openReservations, 1);
    assert.deepEqual(view.executors[CHILD].spent, { tokens: 1_200, costMicros: 300 });
    assert.deepEqual(view.executors[CHILD].reserved, { tokens: 0, costMicros: 0 });
    assert.deepEqual(view.executors[MAIN].reserved, { tokens: 3_000, costMicros: 0 });
    assert.deepEqual(view.executors[CHILD].toolCalls, { used: 1, cap: 25, left: 24 });
    assert.deepEqual(view.executors[CHILD].turns, { used: 1, cap: 12, left: 11 });
  });

  test("refusals are counted by the limit they name, per executor and per run", () => {
    const log = delegatedRun();
    log.fact(CHILD, "budget_refused", { purpose: "model", limit: "run_tokens", reason: "over" }, `executor-${CHILD}`);
    log.fact(CHILD, "budget_refused", { purpose: "tool", limit: "executor_tool_calls", reason: "25 calls" }, `executor-${CHILD}`);
    log.fact(MAIN, "budget_refused", { purpose: "model", limit: "run_tokens", reason: "over" }, `executor-${MAIN}`);
    const view = runView(foldRun(log.events)).budget;
    assert.deepEqual(view.run.refusals, { run_tokens: 2, executor_tool_calls: 1 });
    assert.deepEqual(view.executors[CHILD].refusals, { run_tokens: 1, executor_tool_calls: 1 });
    assert.deepEqual(view.executors[MAIN].refusals, { run_tokens: 1 });
  });

  test("a run with no caps fact has unknown caps and nothing left to compute", () => {
    const view = runView(foldRun(delegatedRun().events)).budget.run;
    assert.deepEqual(view.caps, { tokens: null, costMicros: null });
    assert.deepEqual(view.left, { tokens: null, costMicros: null });
  });

  test("a settlement read before its reservation (another stream) ends in the same state as the other order", () => {
    const log = memoryLog();
    const reserve = log.fact(CHILD, "budget_reserved", { reservationId: "r1", purpose: "model", amount: { tokens: 50 } }, "ledger-a");
    const settle = log.fact(CHILD, "budget_settled", { reservationId: "r1", actual: { tokens: 20 } }, "ledger-b");
    const inOrder = foldAll(budget, [reserve, settle]);
    const reversed = foldAll(budget, [settle, reserve]);
    assert.deepEqual(reversed, inOrder);
    assert.equal(inOrder.unmatchedSettlements, 0);
    assert.deepEqual(inOrder.run.reserved, { tokens: 0, costMicros: 0 });
  });
});

describe("reminders", () => {
  test("given reminders raised for Main and one delivered with a turn, then one is delivered and one pending", () => {
    const log = delegatedRun();
    log.add(MAIN, "reminder_raised", { reminderId: "rem-80", key: "budget:80", text: "80% of the budget is spent", facts: { percent: 80 } });
    log.add(MAIN, "reminder_raised", { reminderId: "rem-child", key: "child_finished:c", text: "A Child finished", facts: {} });
    log.add(MAIN, "reminder_delivered", { reminderId: "rem-80", turn: 2, rendered: "[Ariadne runtime reminder, not from the user] 80% of the budget is spent" });
    const state = foldAll(reminders, log.events);
    assert.deepEqual(state.reminders["rem-80"].deliveries, [{ executorId: MAIN, turn: 2, globalPosition: log.events.at(-1)!.globalPosition }]);
    assert.deepEqual(remindersByExecutor(state), { [MAIN]: { raised: ["rem-80", "rem-child"], delivered: ["rem-80"], pending: ["rem-child"] } });
    assert.deepEqual(runView(foldRun(log.events)).reminders.all.map((r) => [r.reminderId, r.status]), [["rem-80", "delivered"], ["rem-child", "pending"]]);
  });

  test("a second raise of the same reminder keeps the first", () => {
    const log = memoryLog();
    log.add(MAIN, "reminder_raised", { reminderId: "r", key: "k", text: "first", facts: {} });
    log.add(MAIN, "reminder_raised", { reminderId: "r", key: "k", text: "second", facts: {} });
    assert.equal(foldAll(reminders, log.events).reminders.r.text, "first");
  });
});

describe("run state", () => {
  const statusAfter = (events: RecordedEvent[]) => runStatus(foldAll(runState, events));

  test("running until Main is final; then settled, failed or cancelled from Main's own event", () => {
    const log = delegatedRun();
    assert.equal(statusAfter(log.events), "running");
    childFinishes(log);
    // A Child's settle is not the run's.
    assert.equal(statusAfter(log.events), "running");
    for (const [type, data, expected] of [
      ["settled", { outcome: "answered", answer: { summary: "s", sections: [] }, partial: true }, "settled"],
      ["failed", { reason: "model down", kind: "model" }, "failed"],
      ["cancelled", { reason: "stop", by: "operator" }, "cancelled"],
    ] as const) {
      const events = [...log.events, { ...log.events[2], type, data, streamVersion: 4, globalPosition: 99, eventId: "x" } as RecordedEvent];
      assert.equal(statusAfter(events), expected, type);
      assert.equal(foldAll(runState, events).main?.partial, type === "settled", "a partial answer is marked as such");
    }
  });

  test("interrupted by a run_interrupted fact; running again once work resumes; a final Main is not undone", () => {
    const log = delegatedRun();
    log.fact(MAIN, "run_interrupted", { reason: "Ctrl-C" });
    const interrupted = foldRun(log.events);
    assert.equal(runView(interrupted).status, "interrupted");
    assert.equal(runView(interrupted).interruptedReason, "Ctrl-C");
    assert.deepEqual(runView(interrupted).orphans, [MAIN, CHILD], "a run not going on leaves its live executors to a resume");

    // Tool outcomes written while stopping do not resume it; a recovered executor does.
    log.add(CHILD, "turn", textTurn(2));
    assert.equal(runView(foldRun(log.events)).status, "running");

    log.fact(MAIN, "run_interrupted", { reason: "SIGTERM" });
    assert.equal(runView(foldRun(log.events)).status, "interrupted");
    log.fact(MAIN, "run_resumed", {});
    assert.equal(runView(foldRun(log.events)).status, "running");

    log.add(MAIN, "failed", { reason: "gave up", kind: "limit" });
    log.fact(MAIN, "run_interrupted", { reason: "late" });
    const final = runView(foldRun(log.events));
    assert.equal(final.status, "failed");
    assert.equal(final.reason, "gave up");
  });

  test("a run whose owner is known to be gone is interrupted; known live or unknown, it runs", () => {
    const state = foldRun(delegatedRun().events);
    assert.equal(runView(state, { ownerLive: false }).status, "interrupted");
    assert.deepEqual(runView(state, { ownerLive: false }).orphans, [MAIN, CHILD]);
    assert.equal(runView(state, { ownerLive: true }).status, "running");
    assert.equal(runView(state).status, "running");
    const log = delegatedRun();
    log.add(MAIN, "failed", { reason: "x", kind: "y" });
    assert.equal(runView(foldRun(log.events), { ownerLive: false }).status, "failed");
  });

  test("submitted until Main is admitted; a cancel before that ends it; admitted, it runs", () => {
    const log = memoryLog();
    log.fact(MAIN, "run_submitted", { question: "What does ADIV cost?", options: {} });
    assert.equal(runView(foldRun(log.events)).status, "submitted");
    assert.equal(runView(foldRun(log.events)).question, "What does ADIV cost?");
    assert.equal(runView(foldRun([...log.events, log.fact(MAIN, "cancel_requested", { reason: "no", by: "operator", scope: "run" })])).status, "cancelled");
    log.events.pop();
    log.add(MAIN, "executor_admitted", admittedData("main", { parentExecutorId: null }));
    assert.equal(runView(foldRun(log.events)).status, "running");
  });

  test("cancel requests and the run seal are recorded as flags", () => {
    const log = delegatedRun();
    log.fact(MAIN, "cancel_requested", { by: "operator" });
    log.fact(MAIN, "run_sealed", { head: "x" });
    const view = runView(foldRun(log.events));
    assert.equal(view.cancelRequested, true);
    assert.equal(view.sealed, true);
    assert.equal(view.status, "running");
  });
});

/** The Child's second turn sends a notice (effectful) whose outcome is never recorded: resumed, it is effect_unknown. */
function childEffectUnknown(log: ReturnType<typeof memoryLog>) {
  log.add(CHILD, "turn", toolTurn(2, "toolu_e", "send_notice", { to: "ops" }));
  log.add(CHILD, "tool_called", { turn: 2, toolUseId: "toolu_e", tool: "send_notice", input: { to: "ops" }, effect: "effectful" });
  log.add(CHILD, "effect_unknown", { toolUseId: "toolu_e", tool: "send_notice", effect: "effectful", note: "The outcome of send_notice (toolu_e) was never recorded." });
  log.add(CHILD, "recovered", { fromVersion: 6, unknownEffects: ["toolu_e"], rerun: [] });
}

describe("unknown effects", () => {
  test("a run with no effect_unknown lists none", () => {
    const log = delegatedRun();
    childFinishes(log);
    assert.deepEqual(runView(foldRun(log.events)).unknownEffects, []);
  });

  test("each effect_unknown is listed once with its executor, tool use id and tool, in log order; the handoff and answer stay as they were", () => {
    const log = delegatedRun();
    childEffectUnknown(log);
    childFinishes(log, 3);
    const view = runView(foldRun(log.events));
    assert.deepEqual(view.unknownEffects, [{ executorId: CHILD, toolUseId: "toolu_e", tool: "send_notice" }]);
    assert.equal(view.executors.find((x) => x.executorId === CHILD)?.status, "settled");
    // An effect_unknown outside an executor stream names no executor: it is not one.
    log.fact(MAIN, "effect_unknown", { toolUseId: "toolu_x", tool: "send_notice", effect: "effectful", note: "" });
    assert.deepEqual(runView(foldRun(log.events)).unknownEffects, view.unknownEffects);
  });
});

describe("unknown event types", () => {
  test("every projection ignores a type it does not know, in a run-level stream and in an executor stream", () => {
    const log = delegatedRun();
    const before = foldRun(log.events);
    log.fact(MAIN, "brand_new_fact", { reservationId: "r9", reminderId: "m9", amount: { tokens: 5 } });
    log.fact(CHILD, "another_new_fact", { reservationId: "r9" }, `executor-${CHILD}`);
    const after = foldRun(log.events);
    assert.deepEqual(after.budget, before.budget);
    assert.deepEqual(after.reminders, before.reminders);
    assert.equal(runStatus(after.lifecycle), runStatus(before.lifecycle));
    assert.equal(after.lifecycle.events, before.lifecycle.events + 2);
    assert.deepEqual({ ...after.progress.executors[CHILD], lastEvent: null }, { ...before.progress.executors[CHILD], lastEvent: null });
    assert.deepEqual(after.progress.executors[MAIN], before.progress.executors[MAIN]);
  });
});

describe("order of streams", () => {
  test("property: any interleaving that keeps each stream's order gives the same run view", () => {
    const log = delegatedRun();
    log.add(CHILD, "budget_reserved", { reservationId: "r1", purpose: "model", amount: { tokens: 40 } });
    log.fact(CHILD, "budget_settled", { reservationId: "r1", actual: { tokens: 30 } }, "ledger");
    log.fact(MAIN, "budget_settled", { reservationId: "r-elsewhere", actual: { tokens: 5 } }, "ledger");
    log.fact(MAIN, "budget_reserved", { reservationId: "r-elsewhere", purpose: "model", amount: { tokens: 9 } }, "ledger-2");
    log.add(MAIN, "reminder_raised", { reminderId: "m1", key: "k", text: "t", facts: {} });
    log.fact(MAIN, "reminder_delivered", { reminderId: "m1", turn: 2 }, "other");
    log.fact(MAIN, "run_submitted", { caps: { tokens: 1_000 } });
    childEffectUnknown(log);
    childFinishes(log, 3);
    log.fact(MAIN, "run_interrupted", { reason: "stop" });
    const expected = runView(foldRun(log.events));
    const streams = [...new Set(log.events.map((e) => e.streamId))];
    fc.assert(
      fc.property(fc.array(fc.nat(streams.length - 1), { minLength: log.events.length, maxLength: log.events.length }), (picks) => {
        // Take the next event of a chosen stream (or of the first stream with events left).
        const queues = new Map(streams.map((s) => [s, log.events.filter((e) => e.streamId === s)]));
        const order: RecordedEvent[] = [];
        for (const pick of picks) {
          const queue = queues.get(streams[pick])!.length ? queues.get(streams[pick])! : [...queues.values()].find((q) => q.length)!;
          order.push(queue.shift()!);
        }
        assert.deepEqual(runView(foldRun(order)), expected);
      }),
      { numRuns: 300 },
    );
    assert.equal(expected.status, "interrupted");
    assert.deepEqual(expected.budget.run.spent, { tokens: 35, costMicros: 0 });
    assert.equal(expected.budget.run.unmatchedSettlements, 0);
    assert.deepEqual(expected.unknownEffects, [{ executorId: CHILD, toolUseId: "toolu_e", tool: "send_notice" }]);
  });
});
