import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ROLES } from "../../actors/index.ts";
import {
  decideCall,
  decideCancel,
  decideChildOutcome,
  decideNext,
  decideRecovery,
  exhaustWithAnswer,
  exhaustWithHandoff,
  finishWithHandoff,
  handoffFacts,
  idempotencyKeyOf,
  intentKey,
  stopCaveat,
  toolThrew,
} from "../../actors/decide/index.ts";
import type { EventData } from "../../events/index.ts";
import { validateHandoff } from "../../handoff/index.ts";
import { admittedData, handoffInput } from "./fixtures.ts";
import { ev, spec } from "./deciderSpec.ts";
import { renderAdmission, renderConsumed, renderReminderBlock } from "../../actors/request/renderTexts.ts";

const child = ROLES.child;
const main = ROLES.main;
const none = new Set<string>();

function toolTurn(turn: number, uses: { id: string; name: string; input?: unknown }[]): EventData<"turn"> {
  return {
    turn,
    request: { model: "test-model", messageCount: 1, toolNames: [], digest: "0".repeat(64) },
    response: { content: uses.map((u) => ({ type: "tool_use" as const, id: u.id, name: u.name, input: u.input ?? { query: "q" } })), stopReason: "tool_use" },
    usage: { inputTokens: 10, outputTokens: 2 },
    model: "scripted:test",
    provider: "scripted",
    scripted: true,
    latencyMs: 0,
  };
}

const called = (turn: number, id: string, tool = "search_corpus", extra: Partial<EventData<"tool_called">> = {}) =>
  ev("tool_called", { turn, toolUseId: id, tool, input: { query: "q" }, effect: "read_only", ...extra });
const completed = (id: string, output = "result [[corpus:doc#p1]]") => ev("tool_completed", { toolUseId: id, tool: "search_corpus", output, artifacts: [], sources: [] });

/** A Child that has made `calls` tool calls, `perTurn` a turn. */
function busyChild(calls: number, perTurn: number) {
  const events = [ev("executor_admitted", admittedData("child"))];
  let turn = 0;
  for (let done = 0; done < calls; ) {
    turn++;
    const ids = Array.from({ length: Math.min(perTurn, calls - done) }, (_, i) => `toolu_${turn}_${i}`);
    events.push(ev("turn", toolTurn(turn, ids.map((id) => ({ id, name: "search_corpus" })))));
    for (const id of ids) events.push(called(turn, id));
    for (const id of ids) events.push(completed(id));
    done += ids.length;
  }
  return events;
}

describe("decide: what comes next", () => {
  test("given an admitted executor, when deciding, then it calls the model", () => {
    spec().given(ev("executor_admitted", admittedData("child"))).when((s, status) => decideNext(s, status, child, none)).then({ kind: "callModel" });
  });

  test("given a cancel request in the inbox, when deciding, then it cancels before anything else", () => {
    spec()
      .given(
        ev("executor_admitted", admittedData("child")),
        ev("turn", toolTurn(1, [{ id: "toolu_a", name: "search_corpus" }])),
        ev("cancel_requested", { reason: "operator stop", by: "operator", scope: "run" }),
      )
      .when((s, status) => decideNext(s, status, child, none))
      .then({ kind: "cancel" });
  });

  test("given a turn with tool uses, when deciding, then its calls are planned; once intents are recorded they are started", () => {
    const given = [ev("executor_admitted", admittedData("child")), ev("turn", toolTurn(1, [{ id: "toolu_a", name: "search_corpus" }]))];
    spec()
      .given(...given)
      .when((s, status) => decideNext(s, status, child, none).kind)
      .then("plan");
    spec()
      .given(...given, called(1, "toolu_a"))
      .when((s, status) => decideNext(s, status, child, none))
      .thenMatches((next) => assert.deepEqual([next.kind, next.kind === "start" && next.calls.map((c) => c.toolUseId)], ["start", ["toolu_a"]]));
  });

  test("given a later turn that reuses a tool use id of a call this process started, when deciding, then the new intent is started (intents are known by their event, not by the model's id)", () => {
    const given = spec().given(
      ev("executor_admitted", admittedData("child")),
      ev("turn", toolTurn(1, [{ id: "toolu_1", name: "search_corpus" }])),
      called(1, "toolu_1"),
      completed("toolu_1"),
      ev("turn", toolTurn(2, [{ id: "toolu_1", name: "search_corpus" }])),
      called(2, "toolu_1"),
    );
    const firstIntent = "exec-pure-ev-3";
    given
      .when((s, status) => decideNext(s, status, child, new Set([firstIntent])))
      .thenMatches((next) => assert.deepEqual([next.kind, next.kind === "start" && next.calls.map((c) => c.intentEventId)], ["start", ["exec-pure-ev-6"]]));
    given
      .when((s, status) => decideNext(s, status, child, new Set([intentKey(s.calls[0])])))
      .thenMatches((next) => assert.equal(next.kind, "stuck"));
  });

  test("given a governance refusal naming a limit, when deciding the next model call, then the executor stops with that limit", () => {
    spec()
      .given(
        ev("executor_admitted", admittedData("child")),
        ev("turn", toolTurn(1, [{ id: "toolu_a", name: "search_corpus" }])),
        ev("tool_failed", { toolUseId: "toolu_a", tool: "search_corpus", reason: "governance", message: "tool call limit reached", limit: "executor_tool_calls" }),
      )
      .when((s, status) => decideNext(s, status, child, none))
      .then({ kind: "exhaust", stop: { limit: "executor_tool_calls", reason: "tool call limit reached" } });
  });

  test("given a model call that cannot succeed, when deciding, then the executor stops with the failure as its reason", () => {
    spec()
      .given(
        ev("executor_admitted", admittedData("child")),
        ev("turn_failed", { turn: 1, attempt: 1, kind: "invalid_request", message: "bad request", retryable: false }),
      )
      .when((s, status) => decideNext(s, status, child, none))
      .then({ kind: "exhaust", stop: { limit: null, reason: "model call failed 1 time(s): bad request" } });
  });
});

describe("decide: exhaustion is not a crash", () => {
  test("given a Child at 25 of 25 tool calls after 7 turns, when stopped by the tool call limit, then it hands off partial, low confidence, with a caveat saying how far it got", () => {
    spec()
      .given(...busyChild(25, 4))
      .when((s) => exhaustWithHandoff(s, { limit: "executor_tool_calls", reason: "tool call limit reached" }))
      .thenMatches(([committed, settled]) => {
        assert.equal(committed.type, "handoff_committed");
        assert.deepEqual(settled, { type: "settled", data: { outcome: "handed_off" } });
        const data = committed.data as EventData<"handoff_committed">;
        const handoff = data.handoff as { executionState: string; confidence: string; caveats: string[]; gaps: string[] };
        assert.equal(data.forced, true);
        assert.equal(handoff.executionState, "partial");
        assert.equal(handoff.confidence, "low");
        assert.deepEqual(handoff.caveats, ["stopped at the tool call limit (25 of 25) after 7 turns"]);
        assert.equal(handoff.gaps.at(-1), "stopped at the tool call limit (25 of 25) after 7 turns");
      });
  });

  test("given a Child stopped after two successful tool calls it never wrote up, when it hands off, then each result is gathered, unverified material: a low-confidence finding marked gathered, showing a bounded excerpt and citing its tool use", () => {
    const long = `Ongoing charge 0.29% [[corpus:adiv-factsheet#fees]] ${"x".repeat(2_000)} [[corpus:adiv-factsheet#end]]`;
    type Findings = { claim: string; evidence: { toolResults: string[]; citations: string[] }; confidence: string; gathered?: boolean }[];
    spec()
      .given(
        ev("executor_admitted", admittedData("child")),
        ev("turn", toolTurn(1, [{ id: "toolu_a", name: "search_corpus", input: { query: "ADIV fees" } }])),
        called(1, "toolu_a"),
        completed("toolu_a", "The fee cut: 0.38% to 0.29% [[corpus:adiv-fee-announcement#announcement]]"),
        ev("turn", toolTurn(2, [{ id: "toolu_b", name: "search_corpus" }, { id: "toolu_c", name: "search_corpus" }])),
        called(2, "toolu_b"),
        ev("tool_failed", { toolUseId: "toolu_c", tool: "search_corpus", reason: "governance", message: "tool call limit reached (2 of 2)", limit: "executor_tool_calls" }),
        completed("toolu_b", long),
      )
      .when((s) => ({ drafts: exhaustWithHandoff(s, { limit: "executor_tool_calls", reason: "tool call limit reached" }), facts: handoffFacts(s) }))
      .thenMatches(({ drafts: [committed], facts }) => {
        const handoff = (committed.data as EventData<"handoff_committed">).handoff as { findings: Findings; executionState: string; confidence: string; summary: string };
        assert.equal(handoff.executionState, "partial");
        assert.equal(handoff.confidence, "low");
        assert.deepEqual(handoff.findings.map((f) => [f.evidence.toolResults, f.confidence, f.gathered]), [[["toolu_a"], "low", true], [["toolu_b"], "low", true]]);
        assert.match(handoff.findings[0].claim, /^Gathered, not summarised \(unverified\): search_corpus \{"query":"ADIV fees"\} returned: The fee cut: 0\.38% to 0\.29% \[\[corpus:adiv-fee-announcement#announcement\]\]$/);
        assert.deepEqual(handoff.findings[0].evidence.citations, ["[[corpus:adiv-fee-announcement#announcement]]"]);
        // The excerpt is bounded, and cites only the markers it quotes.
        assert.ok(handoff.findings[1].claim.length < 700, `claim of ${handoff.findings[1].claim.length} characters`);
        assert.match(handoff.findings[1].claim, /Ongoing charge 0\.29% \[\[corpus:adiv-factsheet#fees\]\] x+…$/);
        assert.deepEqual(handoff.findings[1].evidence.citations, ["[[corpus:adiv-factsheet#fees]]"]);
        assert.ok(validateHandoff(handoff, facts).ok, "the salvaged handoff passes the ordinary handoff validation");
      });
  });

  test("given a Child whose last handoff attempt was rejected, when its repairs run out, then the valid part of that attempt is kept", () => {
    const attempt = handoffInput("Half done.", [{ claim: "A claim.", evidence: { toolResults: ["toolu_1_0"], citations: [] }, confidence: "high" }], {
      artifacts: [{ id: "made-up", path: "/nowhere", sha256: "0".repeat(64) }],
    });
    spec()
      .given(
        ...busyChild(1, 1),
        ev("turn", { ...toolTurn(2, []), response: { content: [{ type: "tool_use", id: "toolu_h", name: "handoff", input: attempt }], stopReason: "tool_use" } }),
      )
      .when((s) => exhaustWithHandoff(s, { limit: null, reason: "handoff not accepted after 3 attempts" }))
      .thenMatches(([committed]) => {
        const handoff = (committed.data as EventData<"handoff_committed">).handoff as { findings: { claim: string }[]; gaps: string[]; caveats: string[] };
        assert.deepEqual(handoff.findings.map((f) => f.claim), ["A claim."]);
        assert.equal(handoff.gaps.at(-1), "handoff not accepted after 3 attempts");
        // The salvage explains what it dropped; a reason that is not a limit stays a gap, not a caveat.
        assert.match(handoff.caveats.join("\n"), /artifact "made-up" dropped/);
        assert.ok(!handoff.caveats.includes("handoff not accepted after 3 attempts"));
      });
  });

  test("given Main holding one handoff, when stopped by its turn limit, then it settles with a partial answer citing that handoff", () => {
    const held = handoffInput("Fees.", [{ claim: "The fee is 0.29%.", evidence: { toolResults: ["t"], citations: [] }, confidence: "high" }]);
    spec("main-pure")
      .given(
        ev("executor_admitted", admittedData("main", { grantedTools: ["delegate"], limits: { maxTurns: 2, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 } })),
        ev("turn", toolTurn(1, [{ id: "toolu_d", name: "delegate", input: {} }])),
        called(1, "toolu_d", "delegate", { childExecutorId: "child-1", effect: "idempotent" }),
        ev("handoff_consumed", { childExecutorId: "child-1", toolUseId: "toolu_d", handoffEventId: "child-1-ev-9", handoff: held, rendered: renderConsumed({ childExecutorId: "child-1", handoff: held }, false) }),
        ev("turn", toolTurn(2, [])),
      )
      .when((s) => exhaustWithAnswer(s, { limit: "executor_turns", reason: "turn limit reached (2 turns)" }))
      .thenMatches(([settled]) => {
        assert.equal(settled.type, "settled");
        const data = settled.data as EventData<"settled">;
        assert.equal(data.partial, true);
        const answer = data.answer as { summary: string; sections: { claims: { text: string; basis: string; citations: unknown[] }[] }[] };
        assert.match(answer.summary, /^Partial answer: stopped at the turn limit \(2 of 2\) after 1 tool call\./);
        assert.deepEqual(answer.sections[0].claims, [{ text: "The fee is 0.29%.", basis: "observed", citations: [{ executor: "child-1", finding: 0 }] }]);
      });
  });

  test("the caveat of another limit names it and how far the executor got", () => {
    spec()
      .given(...busyChild(3, 3))
      .when((s) => stopCaveat(s, { limit: "run_tokens", reason: "the run has 120 of 600000 tokens left" }))
      .then("stopped at the token budget of the run after 1 turn and 3 tool calls: the run has 120 of 600000 tokens left");
  });
});

describe("decide: tool calls and their outcomes", () => {
  const call = { toolUseId: "toolu_x", name: "search_corpus", input: { query: "q" }, phase: "requested" as const };
  test("when governance refuses a call, then the refusal names its limit and tells the model to finish with what it has", () => {
    assert.deepEqual(decideCall(child, 3, call, { kind: "refused", limit: "executor_tool_calls", reason: "tool call limit reached", events: [] }), [
      {
        type: "tool_failed",
        data: {
          toolUseId: "toolu_x",
          tool: "search_corpus",
          reason: "governance",
          message: "tool call limit reached. Hand off what you have; note the rest as gaps.",
          limit: "executor_tool_calls",
        },
      },
    ]);
  });

  test("when a call is allowed, then governance's events ride with the intent", () => {
    const reserved = { type: "budget_reserved" as const, data: { reservationId: "r1", purpose: "tool" as const, amount: { toolCalls: 1 } } };
    const drafts = decideCall(main, 1, call, { kind: "allowed", effect: "read_only", events: [reserved] });
    assert.deepEqual(drafts.map((d) => d.type), ["budget_reserved", "tool_called"]);
  });

  test("a tool aborted by a cancel: unknown if it may have changed something, cancelled if read-only; an ordinary error is an error", () => {
    const intent = { ...call, phase: "called" as const, intentEventId: "ev-intent" };
    assert.equal(toolThrew(intent, "effectful", "boom", true).type, "effect_unknown");
    assert.deepEqual(toolThrew(intent, "read_only", "aborted", true).data, { toolUseId: "toolu_x", tool: "search_corpus", reason: "cancelled", message: "aborted" });
    assert.equal((toolThrew(intent, "effectful", "boom", false).data as { reason: string }).reason, "error");
  });

  test("given an intent of each effect class in flight at a crash, when recovering, then only the effectful one is unknown; read-only and idempotent ones are run again; a delegation re-attaches", () => {
    const effects = { search_corpus: "read_only", upsert_note: "idempotent", send_notice: "effectful" } as const;
    const given = spec().given(
      ev("executor_admitted", admittedData("main", { grantedTools: ["search_corpus", "upsert_note", "send_notice", "delegate"] })),
      ev(
        "turn",
        toolTurn(1, [
          { id: "toolu_r", name: "search_corpus" },
          { id: "toolu_i", name: "upsert_note" },
          { id: "toolu_e", name: "send_notice" },
          { id: "toolu_d", name: "delegate", input: {} },
        ]),
      ),
      called(1, "toolu_r"),
      called(1, "toolu_i", "upsert_note", { effect: "idempotent" }),
      called(1, "toolu_e", "send_notice", { effect: "effectful" }),
      called(1, "toolu_d", "delegate", { childExecutorId: "child-1", effect: "idempotent" }),
    );
    const drafts = given.when((s) => decideRecovery(s, (t) => effects[t as keyof typeof effects] ?? "effectful")).result;
    assert.deepEqual(
      drafts.map((d) => [d.type, d.data]),
      [
        [
          "effect_unknown",
          {
            toolUseId: "toolu_e",
            tool: "send_notice",
            effect: "effectful",
            note: "The outcome of send_notice (toolu_e) was never recorded: the process stopped while it ran. It was not run again; check its effect before relying on it.",
          },
        ],
        ["recovered", { fromVersion: 6, unknownEffects: ["toolu_e"], rerun: ["toolu_r", "toolu_i"] }],
      ],
    );
    assert.equal(drafts[0].causationId, given.fold.state.calls.find((c) => c.toolUseId === "toolu_e")!.intentEventId, "the unknown outcome names its intent");

    // Then: with the recovery recorded, the next step starts the re-runs (nothing was started in this process)...
    const after = spec().given(
      ev("executor_admitted", admittedData("main", { grantedTools: ["search_corpus", "upsert_note", "send_notice", "delegate"] })),
      ev("turn", toolTurn(1, [{ id: "toolu_r", name: "search_corpus" }, { id: "toolu_i", name: "upsert_note" }, { id: "toolu_e", name: "send_notice" }])),
      called(1, "toolu_r"),
      called(1, "toolu_i", "upsert_note", { effect: "idempotent" }),
      called(1, "toolu_e", "send_notice", { effect: "effectful" }),
      ...(drafts.filter((d) => d.type === "effect_unknown") as never as Parameters<ReturnType<typeof spec>["given"]>),
      ev("recovered", { fromVersion: 5, unknownEffects: ["toolu_e"], rerun: ["toolu_r", "toolu_i"] }),
    );
    after
      .when((s, status) => decideNext(s, status, main, none))
      .thenMatches((next) => assert.deepEqual(next.kind === "start" && next.calls.map((c) => c.toolUseId), ["toolu_r", "toolu_i"]));
    // ... each with the key of its own intent, the one the first run carried.
    const [r, i] = after.fold.state.calls;
    assert.deepEqual([idempotencyKeyOf(r), idempotencyKeyOf(i)], [r.intentEventId, i.intentEventId]);
    assert.notEqual(idempotencyKeyOf(r), idempotencyKeyOf(i));
  });

  test("given an intent recorded as effectful, when the host now calls its tool read-only, then recovery goes by the stricter class: unknown, not re-run", () => {
    spec()
      .given(
        ev("executor_admitted", admittedData("child", { grantedTools: ["send_notice"] })),
        ev("turn", toolTurn(1, [{ id: "toolu_e", name: "send_notice" }])),
        called(1, "toolu_e", "send_notice", { effect: "effectful" }),
      )
      .when((s) => decideRecovery(s, () => "read_only").map((d) => d.type))
      .then(["effect_unknown", "recovered"]);
  });

  test("given nothing in flight, when recovering, then nothing is recorded", () => {
    spec()
      .given(ev("executor_admitted", admittedData("child")), ev("turn", toolTurn(1, [{ id: "toolu_r", name: "search_corpus" }])), called(1, "toolu_r"), completed("toolu_r"))
      .when((s) => decideRecovery(s, () => "read_only"))
      .then([]);
  });

  const unknownAfterCrash = [
    ev("executor_admitted", admittedData("child", { grantedTools: ["search_corpus", "send_notice"] })),
    ev("turn", toolTurn(1, [{ id: "toolu_e", name: "send_notice" }])),
    called(1, "toolu_e", "send_notice", { effect: "effectful" }),
    ev("effect_unknown", { toolUseId: "toolu_e", tool: "send_notice", effect: "effectful", note: "never recorded" }),
    ev("recovered", { fromVersion: 3, unknownEffects: ["toolu_e"], rerun: [] }),
  ];

  test("given an effect of unknown outcome, when the Child hands off as completed, then its handoff says unknown_effects and names the call as a gap", () => {
    const handoff = { ...handoffInput("Sent the notice."), executionState: "completed", gaps: [] };
    spec()
      .given(...unknownAfterCrash, ev("turn", toolTurn(2, [{ id: "toolu_h", name: "handoff", input: handoff }])))
      .when((s) => finishWithHandoff(s, s.calls[0]))
      .thenMatches(([committed]) => {
        const h = committed.data as unknown as { handoff: { executionState: string; gaps: string[] } };
        assert.equal(committed.type, "handoff_committed");
        assert.equal(h.handoff.executionState, "unknown_effects");
        assert.deepEqual(h.handoff.gaps, [
          "Unknown effect: the outcome of send_notice (toolu_e) was never recorded; it was not run again. Check whether it took effect.",
        ]);
      });
  });

  test("given an effect of unknown outcome, when the Child is stopped by a limit, then its forced partial handoff lists the unknown effect too", () => {
    spec()
      .given(...unknownAfterCrash)
      .when((s) => exhaustWithHandoff(s, { limit: "executor_turns", reason: "turn limit" }))
      .thenMatches(([committed]) => {
        const d = committed.data as unknown as { forced: boolean; handoff: { executionState: string; gaps: string[] } };
        assert.equal(d.forced, true);
        assert.equal(d.handoff.executionState, "unknown_effects");
        assert.ok(d.handoff.gaps.some((g) => g.includes("send_notice (toolu_e)")), d.handoff.gaps.join(" | "));
      });
  });

  test("given no unknown effect, when the Child hands off, then its handoff is kept as written", () => {
    const handoff = handoffInput("Nothing looked up.");
    spec()
      .given(ev("executor_admitted", admittedData("child")), ev("turn", toolTurn(1, [{ id: "toolu_h", name: "handoff", input: handoff }])))
      .when((s) => finishWithHandoff(s, s.calls[0]))
      .thenMatches(([committed]) => assert.deepEqual((committed.data as { handoff: unknown }).handoff, handoff));
  });
});

describe("decide: Children and cancellation", () => {
  const delegated = [
    ev("executor_admitted", admittedData("main", { grantedTools: ["delegate"] })),
    ev("turn", toolTurn(1, [{ id: "toolu_d", name: "delegate", input: {} }])),
    called(1, "toolu_d", "delegate", { childExecutorId: "child-1", effect: "idempotent" }),
  ];

  test("a cancelled Child is one fact to its parent: a failed delegation carrying why, with no handoff to cite", () => {
    const draft = decideChildOutcome({
      childExecutorId: "child-1",
      toolUseId: "toolu_d",
      intentEventId: "main-ev-3",
      outcome: { kind: "cancelled", reason: "operator stop", eventId: "child-ev-7" },
    }, false);
    assert.equal(draft.type, "handoff_consumed");
    const data = draft.data as EventData<"handoff_consumed">;
    assert.deepEqual(data.childEnded, { outcome: "cancelled", reason: "operator stop" });
    assert.equal(data.handoffEventId, "child-ev-7");
    assert.equal((data.handoff as { executionState: string }).executionState, "not_executed");

    // Foreground: the delegate call is answered with an error result; the Child's handoff cannot be cited.
    const { fold } = spec("main-pure").given(...delegated, ev("handoff_consumed", data));
    const last = fold.state.messages.at(-1)!;
    assert.ok(Array.isArray(last.content));
    const [result] = last.content as { type: string; is_error?: boolean; content?: string }[];
    assert.equal(result.is_error, true);
    assert.match(result.content!, /^Child child-1 cancelled without a handoff: operator stop\. Its delegation failed/);
    assert.equal(fold.state.children["child-1"].handoff, undefined);
  });

  test("the same fact for a background Child: delivered with the next request as a failed delegation, never as a handoff", () => {
    const background = [
      ev("executor_admitted", admittedData("main", { grantedTools: ["delegate"] })),
      ev("turn", toolTurn(1, [{ id: "toolu_d", name: "delegate", input: { wait: false } }])),
      called(1, "toolu_d", "delegate", { childExecutorId: "child-1", effect: "idempotent", input: { wait: false } }),
      ev("tool_completed", { toolUseId: "toolu_d", tool: "delegate", output: "working in the background", artifacts: [], sources: [] }),
    ];
    const draft = decideChildOutcome({
      childExecutorId: "child-1",
      toolUseId: "toolu_d",
      intentEventId: "main-ev-3",
      outcome: { kind: "failed", reason: "runtime error", eventId: "child-ev-4" },
    }, true);
    const { fold } = spec("main-pure").given(...background, ev("handoff_consumed", draft.data as EventData<"handoff_consumed">));
    const last = fold.state.messages.at(-1)!.content as { type: string; text?: string }[];
    assert.deepEqual(last.at(-1), {
      type: "text",
      text: "Background Child child-1 failed without a handoff: runtime error. Its delegation failed; delegate again or go on without it.",
    });
    assert.deepEqual(fold.state.children["child-1"], { toolUseId: "toolu_d", consumed: true });
  });

  test("given a cancel request while a Child works, when cancelling, then `cancelled` names the Child and the aborted tool", () => {
    spec("main-pure")
      .given(...delegated, ev("cancel_requested", { reason: "user gave up", by: "operator", scope: "run" }))
      .when((s) => decideCancel(s, [{ kind: "tool", toolUseId: "toolu_z", tool: "read_document" }]))
      .then({
        type: "cancelled",
        data: {
          reason: "user gave up",
          by: "operator",
          inFlight: [
            { kind: "tool", toolUseId: "toolu_z", tool: "read_document" },
            { kind: "child", childExecutorId: "child-1", toolUseId: "toolu_d" },
          ],
        },
      });
  });
});

describe("the fold: reminders", () => {
  test("a raised reminder is pending; delivered, it is a distinct text block marked as the runtime's", () => {
    const raised = [
      ev("executor_admitted", admittedData("child")),
      ev("reminder_raised", { reminderId: "rem-1", key: "budget:80", text: "80% of the run's token budget is spent.", facts: { percent: 80 } }),
    ];
    const pending = spec().given(...raised).fold.state;
    assert.deepEqual(pending.reminders, { "rem-1": { text: "80% of the run's token budget is spent.", delivered: false } });
    assert.equal(typeof pending.messages[0].content, "string");

    const delivered = spec().given(...raised, ev("reminder_delivered", { reminderId: "rem-1", turn: 1, rendered: renderReminderBlock("80% of the run's token budget is spent.") })).fold.state;
    assert.equal(delivered.reminders["rem-1"].delivered, true);
    assert.deepEqual((delivered.messages[0].content as { type: string; text: string }[])[1], {
      type: "text",
      text: "[Ariadne runtime reminder, not from the user] 80% of the run's token budget is spent.",
    });
  });

  test("a reminder cannot be delivered twice", () => {
    assert.throws(() =>
      spec().given(
        ev("executor_admitted", admittedData("child")),
        ev("reminder_raised", { reminderId: "rem-1", key: "k", text: "t", facts: {} }),
        ev("reminder_delivered", { reminderId: "rem-1", turn: 1, rendered: renderReminderBlock("t") }),
        ev("reminder_delivered", { reminderId: "rem-1", turn: 2, rendered: renderReminderBlock("t") }),
      ),
    );
  });
});

describe("the fold: legality", () => {
  test("an event the machine does not allow in the current state is refused, naming it", () => {
    assert.throws(
      () => spec().given(ev("executor_admitted", admittedData("child")), ev("handoff_committed", { handoff: {}, repairs: 0, forced: false }), ev("tool_called", { turn: 1, toolUseId: "t", tool: "x", input: {}, effect: "read_only" })),
      /tool_called \(v3\) cannot happen to exec-pure in its current state \(handingOff\)/,
    );
  });

  test("nothing follows a final state, not even an inbox fact", () => {
    assert.throws(
      () => spec().given(ev("executor_admitted", admittedData("child")), ev("failed", { reason: "x", kind: "test" }), ev("reminder_raised", { reminderId: "r", key: "k", text: "t", facts: {} })),
      /reminder_raised \(v3\) cannot happen to exec-pure: it is already failed/,
    );
  });
});

