import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ROLES } from "../../actors/index.ts";
import { decide } from "../../actors/decide/index.ts";
import type { EventData } from "../../events/index.ts";
import { admittedData, handoffInput, textTurn } from "./fixtures.ts";
import { ev, spec } from "./deciderSpec.ts";

/**
 * Every kind of fact through `decide` itself, given events / when a fact /
 * then the drafts: the facts whose rules are specified in detail through
 * their own functions (decide.test.ts) are checked here to reach them.
 */
const child = ROLES.child;
const main = ROLES.main;

function toolTurn(turn: number, uses: { id: string; name: string; input?: unknown }[]): EventData<"turn"> {
  return {
    ...textTurn(turn),
    response: { content: uses.map((u) => ({ type: "tool_use" as const, id: u.id, name: u.name, input: u.input ?? { query: "q" } })), stopReason: "tool_use" },
  };
}

const admittedChild = ev("executor_admitted", admittedData("child"));
const searching = [
  admittedChild,
  ev("turn", toolTurn(1, [{ id: "toolu_s", name: "search_corpus" }])),
  ev("tool_called", { turn: 1, toolUseId: "toolu_s", tool: "search_corpus", input: { query: "q" }, effect: "read_only" }),
];
const types = (drafts: { type: string }[]) => drafts.map((d) => d.type);

describe("decide: every fact", () => {
  test("given an effectful intent without an outcome, when rebuilt, then it is unknown and recovery is recorded; given a read-only one, it is run again", () => {
    const effectful = [admittedChild, ev("turn", toolTurn(1, [{ id: "toolu_e", name: "send_notice" }])), ev("tool_called", { turn: 1, toolUseId: "toolu_e", tool: "send_notice", input: {}, effect: "effectful" })];
    assert.deepEqual(types(spec().given(...effectful).when((s) => decide(s, { kind: "rebuilt", effectOf: () => "effectful" }, child)).result), ["effect_unknown", "recovered"]);
    const rerun = spec().given(...searching).when((s) => decide(s, { kind: "rebuilt", effectOf: () => "read_only" }, child)).result;
    assert.deepEqual(types(rerun), ["recovered"]);
    assert.deepEqual((rerun[0]!.data as EventData<"recovered">).rerun, ["toolu_s"]);
  });

  test("given a Child, when stopped by a limit, then it commits a forced partial handoff and settles; given Main, it settles with a partial answer", () => {
    const stop = { limit: "executor_turns", reason: "turn limit reached" } as const;
    const handedOff = spec().given(admittedChild).when((s) => decide(s, { kind: "stopped", stop }, child)).result;
    assert.deepEqual(types(handedOff), ["handoff_committed", "settled"]);
    assert.equal((handedOff[0]!.data as EventData<"handoff_committed">).forced, true);
    const answered = spec("main-pure").given(ev("executor_admitted", admittedData("main"))).when((s) => decide(s, { kind: "stopped", stop }, main)).result;
    assert.deepEqual(types(answered), ["settled"]);
    assert.equal((answered[0]!.data as EventData<"settled">).partial, true);
  });

  test("given a cancel request, when what was in flight stopped, then `cancelled` names it", () => {
    spec()
      .given(...searching, ev("cancel_requested", { reason: "operator stop", by: "operator", scope: "run" }))
      .when((s) => decide(s, { kind: "cancelStopped", inFlight: [{ kind: "tool", toolUseId: "toolu_s", tool: "search_corpus" }] }, child))
      .then([{ type: "cancelled", data: { reason: "operator stop", by: "operator", inFlight: [{ kind: "tool", toolUseId: "toolu_s", tool: "search_corpus" }] } }]);
  });

  test("given a called tool, when it returns, then tool_completed is caused by its intent; when it throws, then tool_failed says why", () => {
    const given = spec().given(...searching);
    const call = given.fold.state.calls[0]!;
    const [completed] = given.when((s) => decide(s, { kind: "toolReturned", call, output: "found [[corpus:doc#p1]]" }, child)).result;
    assert.equal(completed!.type, "tool_completed");
    assert.equal(completed!.causationId, call.intentEventId);
    const [failed] = given.when((s) => decide(s, { kind: "toolThrew", call, effect: "read_only", message: "timed out", cancelled: false }, child)).result;
    assert.equal(failed!.type, "tool_failed");
    assert.match(JSON.stringify(failed!.data), /timed out/);
  });

  test("given two Children ended, when their results arrive, then each is one handoff_consumed, in order", () => {
    const drafts = spec("main-pure")
      .given(ev("executor_admitted", admittedData("main")))
      .when((s) =>
        decide(
          s,
          {
            kind: "childrenEnded",
            results: [
              { childExecutorId: "c1", toolUseId: "t1", intentEventId: "i1", outcome: { kind: "handoff", handoff: { summary: "s" }, forced: false, eventId: "h1", hash: "x" } },
              { childExecutorId: "c2", toolUseId: "t2", intentEventId: "i2", outcome: { kind: "failed", reason: "boom", eventId: "f2" } },
            ],
          },
          main,
        ),
      ).result;
    assert.deepEqual(drafts.map((d) => [d.type, (d.data as EventData<"handoff_consumed">).childExecutorId, d.causationId]), [
      ["handoff_consumed", "c1", "h1"],
      ["handoff_consumed", "c2", "f2"],
    ]);
  });

  test("given a handoff call alone in its turn, when it is the terminal call, then the handoff is committed as written", () => {
    const handoff = handoffInput("Nothing found.");
    const given = spec().given(admittedChild, ev("turn", toolTurn(1, [{ id: "toolu_h", name: "handoff", input: handoff }])));
    const [committed] = given.when((s) => decide(s, { kind: "terminalCalled", call: s.calls[0]! }, child)).result;
    assert.equal(committed!.type, "handoff_committed");
    assert.deepEqual((committed!.data as { handoff: unknown }).handoff, handoff);
  });
});
