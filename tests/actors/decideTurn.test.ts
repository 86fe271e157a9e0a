import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ROLES, type Outcome } from "../../actors/index.ts";
import { type CheckedCall, decide, decideNext, previewTurn, withRaisedReminders } from "../../actors/decide/index.ts";
import { canonicalRequest, digestOf } from "../../actors/request/buildRequest.ts";
import type { Draft, EventData } from "../../events/index.ts";
import { ModelCallError } from "../../models/index.ts";
import type { ModelRequest, ModelResponse } from "../../models/types.ts";
import { admittedData, textTurn } from "./fixtures.ts";
import { ev, spec } from "./deciderSpec.ts";

const main = ROLES.main;
const child = ROLES.child;
const none = new Set<string>();

function toolTurn(turn: number, uses: { id: string; name: string; input?: unknown }[]): EventData<"turn"> {
  return {
    ...textTurn(turn),
    response: { content: uses.map((u) => ({ type: "tool_use" as const, id: u.id, name: u.name, input: u.input ?? { query: "q" } })), stopReason: "tool_use" },
  };
}

/** Main with one Child working in the background (its delegate call answered at once). */
const backgroundChild = [
  ev("executor_admitted", admittedData("main", { grantedTools: ["search_corpus", "delegate"] })),
  ev("turn", toolTurn(1, [{ id: "toolu_d", name: "delegate", input: { wait: false } }])),
  ev("tool_called", { turn: 1, toolUseId: "toolu_d", tool: "delegate", input: { wait: false }, effect: "idempotent", childExecutorId: "child-1" }),
  ev("tool_completed", { toolUseId: "toolu_d", tool: "delegate", output: "working in the background", artifacts: [], sources: [] }),
];

const handoff: Outcome = { kind: "handoff", handoff: { summary: "found it", findings: [] }, forced: false, eventId: "child-1-ev-9", hash: "h" };

describe("decide: the idle wait for background Children (a state flag)", () => {
  test("given a background Child and a turn ending without a tool call, when deciding, then it waits for the Child instead of spending a turn", () => {
    spec("main-pure")
      .given(...backgroundChild, ev("turn", textTurn(2)))
      .when((s, status) => decideNext(s, status, main, none))
      .then({ kind: "collectChildren", children: [{ childExecutorId: "child-1", toolUseId: "toolu_d" }], wait: true });
  });

  test("given a background Child and nothing idle, when deciding, then finished Children are collected without waiting before the model is called", () => {
    spec("main-pure")
      .given(...backgroundChild)
      .when((s, status) => decideNext(s, status, main, none))
      .then({ kind: "collectChildren", children: [{ childExecutorId: "child-1", toolUseId: "toolu_d" }], wait: false });
  });

  test("given the idle executor and a delivery into its last message, when deciding, then it no longer waits", () => {
    const given = spec("main-pure").given(
      ...backgroundChild,
      ev("turn", textTurn(2)),
      ev("reminder_raised", { reminderId: "rem-1", text: "time is passing", key: "k", rule: "time" } as never),
    );
    assert.equal(given.fold.state.idleForChildren, true, "a reminder raised is not yet delivered");
    const { preview } = previewTurn(given.fold.state, {});
    assert.equal(preview.idleForChildren, false);
  });

  test("given the nudge text as a Child's own words, when deciding, then the flag (not the text) says whether it waits", () => {
    spec("main-pure")
      .given(ev("executor_admitted", admittedData("main")), ev("turn", textTurn(1, main.nudge)))
      .when((s, status) => decideNext(s, status, main, none))
      .then({ kind: "callModel" });
  });
});

describe("decide: the request preview with deliveries (built once per turn)", () => {
  const raised = [
    ev("executor_admitted", admittedData("child")),
    ev("reminder_raised", { reminderId: "rem-1", text: "half the budget is spent", key: "k", rule: "budget" } as never),
  ];

  test("given a pending reminder, when previewing the turn, then it is delivered with the next turn and the preview carries it", () => {
    const { result } = spec().given(...raised).when((s) => previewTurn(s, {}));
    assert.deepEqual(result.deliveries, [{ type: "reminder_delivered", data: { reminderId: "rem-1", turn: 1, rendered: "[Ariadne runtime reminder, not from the user] half the budget is spent" } }]);
    // The preview shows the block the delivery records, so the request sent is the one a rebuild makes.
    assert.equal((result.preview.messages.at(-1)!.content as { text: string }[]).at(-1)!.text, "[Ariadne runtime reminder, not from the user] half the budget is spent");
  });

  test("given reviews, when previewing, then a finished advisory one is delivered as advice, a shadow one closed unseen, an unfinished one left", () => {
    const reviews = [
      ev("executor_admitted", admittedData("main")),
      ev("review_requested", { reviewId: "r-adv", mode: "advisory", reviewerExecutorId: "rev-1", subject: "findings of a" }),
      ev("review_requested", { reviewId: "r-sh", mode: "shadow", reviewerExecutorId: "rev-2", subject: "findings of b" }),
      ev("review_requested", { reviewId: "r-wip", mode: "advisory", reviewerExecutorId: "rev-3", subject: "findings of c" }),
    ];
    spec("main-pure")
      .given(...reviews)
      .when((s) => previewTurn(s, { "r-adv": handoff, "r-sh": handoff, "r-wip": null }).deliveries)
      .then([
        {
          type: "review_delivered",
          data: {
            reviewId: "r-adv",
            delivered: true,
            turn: 1,
            advice: '{"findings":[],"summary":"found it"}',
            rendered: '[Ariadne runtime: advice from an independent reviewer, not from the user. It does not approve or veto anything; weigh it as evidence.]\n{"findings":[],"summary":"found it"}',
          },
        },
        { type: "review_delivered", data: { reviewId: "r-sh", delivered: false, turn: null } },
      ]);
  });

  test("given governance raising a reminder for this call, when added to the preview, then it is delivered with this turn; none raised keeps the same preview", () => {
    const { fold } = spec().given(ev("executor_admitted", admittedData("child")));
    const turn = previewTurn(fold.state, {});
    assert.equal(withRaisedReminders(turn, [{ type: "budget_reserved", data: {} } as unknown as Draft]), turn);
    const raisedNow = withRaisedReminders(turn, [{ type: "reminder_raised", data: { reminderId: "rem-9", text: "wrap up", key: "k", rule: "r" } } as unknown as Draft]);
    assert.deepEqual(raisedNow.deliveries, [{ type: "reminder_delivered", data: { reminderId: "rem-9", turn: 1, rendered: "[Ariadne runtime reminder, not from the user] wrap up" } }]);
    assert.match(JSON.stringify(raisedNow.preview.messages.at(-1)), /wrap up/);
  });
});

describe("decide: a refusal spreads over the rest of the turn", () => {
  const calls = ["toolu_a", "toolu_b", "toolu_c"].map((id) => ({ toolUseId: id, name: "search_corpus", input: { query: "q" }, phase: "requested" as const }));
  const ok = { ok: true as const, events: [] };
  const refused = { ok: false as const, limit: "run_tokens" as const, reason: "the run's token budget is spent", events: [{ type: "budget_refused", data: {} } as unknown as Draft] };

  test("given a refusal on the second call, when deciding the turn, then the third is refused for the same limit, its events with the first refusal only", () => {
    const checked: CheckedCall[] = [
      { call: calls[0]!, kind: "governed", effect: "read_only", verdict: ok },
      { call: calls[1]!, kind: "governed", effect: "read_only", verdict: refused },
      { call: calls[2]!, kind: "governed", effect: "read_only", verdict: ok },
    ];
    const drafts = spec().given(ev("executor_admitted", admittedData("child"))).when((s) => decide(s, { kind: "callsChecked", turn: 1, calls: checked }, child)).result;
    assert.deepEqual(
      drafts.map((d) => [d.type, (d.data as { toolUseId?: string }).toolUseId, (d.data as { limit?: string }).limit]),
      [
        ["tool_called", "toolu_a", undefined],
        ["budget_refused", undefined, undefined],
        ["tool_failed", "toolu_b", "run_tokens"],
        ["tool_failed", "toolu_c", "run_tokens"],
      ],
    );
  });

  test("given a call not granted and one with invalid input, when deciding the turn, then each is refused for its own reason and governance is not spread", () => {
    const checked: CheckedCall[] = [
      { call: { ...calls[0]!, name: "web_fetch" }, kind: "notGranted" },
      { call: calls[1]!, kind: "invalid", problem: "query: required" },
      { call: calls[2]!, kind: "governed", effect: "read_only", verdict: ok },
    ];
    const drafts = spec().given(ev("executor_admitted", admittedData("child"))).when((s) => decide(s, { kind: "callsChecked", turn: 1, calls: checked }, child)).result;
    assert.deepEqual(
      drafts.map((d) => [d.type, (d.data as { reason?: string }).reason ?? null]),
      [
        ["tool_failed", "not_granted"],
        ["tool_failed", "invalid_input"],
        ["tool_called", null],
      ],
    );
  });
});

describe("decide: the turn and turn_failed drafts", () => {
  const request: ModelRequest = { model: "test-model", system: "s", messages: [{ role: "user", content: "q" }], tools: [], maxTokens: 100 };
  const response: ModelResponse = { content: [{ type: "text", text: "hi" }], stopReason: "end_turn", usage: { inputTokens: 5, outputTokens: 1 }, model: "scripted:test", scripted: true };
  const reserved = { type: "budget_reserved", data: { n: 1 } } as unknown as Draft;
  const settled = { type: "budget_settled", data: { n: 2 } } as unknown as Draft;

  test("given an answered call, when deciding, then governance's events, the deliveries, the turn with its request digest, the decisions and the settlement are one append in that order", () => {
    const canonical = canonicalRequest(request);
    const delivery: Draft = { type: "reminder_delivered", data: { reminderId: "rem-1", turn: 1, rendered: "[Ariadne runtime reminder, not from the user] r" } };
    const decision = { type: "tool_called", data: { n: 3 } } as unknown as Draft;
    const drafts = spec()
      .given(ev("executor_admitted", admittedData("child")))
      .when((s) =>
        decide(s, { kind: "modelAnswered", governed: [reserved], deliveries: [delivery], request, digest: digestOf(canonical), response, provider: "scripted", latencyMs: 1.5, decisions: [decision], settlement: [settled] }, child),
      ).result;
    assert.deepEqual(drafts.map((d) => d.type), ["budget_reserved", "reminder_delivered", "turn", "tool_called", "budget_settled"]);
    const turn = drafts[2]!.data as EventData<"turn">;
    assert.deepEqual(turn.request, { model: "test-model", messageCount: 1, toolNames: [], digest: digestOf(canonical) });
    assert.equal(turn.turn, 1);
    assert.equal(turn.latencyMs, 1.5);
  });

  test("given a retryable model error, when deciding, then turn_failed names its kind and attempt, between the reservation and its settlement", () => {
    const error = new ModelCallError({ kind: "overloaded", retryable: true, message: "overloaded" });
    spec()
      .given(ev("executor_admitted", admittedData("child")), ev("turn_failed", { turn: 1, attempt: 1, kind: "overloaded", message: "x", retryable: true }))
      .when((s) => decide(s, { kind: "modelFailed", governed: [reserved], settlement: [settled], error, cancelled: false }, child))
      .then([reserved, { type: "turn_failed", data: { turn: 1, attempt: 2, kind: "overloaded", message: "overloaded", retryable: true } }, settled]);
  });

  test("given any other error, when deciding, then it is an error that a retry will not mend; given a cancel, only the reservation is settled", () => {
    const given = spec().given(ev("executor_admitted", admittedData("child")));
    given.when((s) => decide(s, { kind: "modelFailed", governed: [], settlement: [], error: new Error("boom"), cancelled: false }, child)).then([
      { type: "turn_failed", data: { turn: 1, attempt: 1, kind: "error", message: "boom", retryable: false } },
    ]);
    given.when((s) => decide(s, { kind: "modelFailed", governed: [reserved], settlement: [settled], error: new Error("aborted"), cancelled: true }, child)).then([reserved, settled]);
  });

  test("given governance refusing the call, when deciding, then its events come first and the role settles with what it has", () => {
    const drafts = spec("main-pure")
      .given(ev("executor_admitted", admittedData("main")))
      .when((s) => decide(s, { kind: "modelRefused", limit: "run_cost", reason: "cost budget spent", events: [reserved] }, main)).result;
    assert.deepEqual(drafts.map((d) => d.type), ["budget_reserved", "settled"]);
    assert.equal((drafts[1]!.data as EventData<"settled">).partial, true);
  });
});

describe("decide: Children and settling", () => {
  test("given a background delegation admitted, when deciding, then its call is answered at once naming the Child", () => {
    const call = { toolUseId: "toolu_d", name: "delegate", input: { wait: false }, phase: "called" as const, childExecutorId: "child-1", intentEventId: "main-pure-ev-3" };
    const [draft] = spec("main-pure").given(...backgroundChild.slice(0, 3)).when((s) => decide(s, { kind: "childWorking", call }, main)).result;
    assert.equal(draft!.type, "tool_completed");
    assert.equal(draft!.causationId, "main-pure-ev-3");
    assert.equal(JSON.parse((draft!.data as { output: string }).output).child_executor_id, "child-1");
  });

  test("given a committed handoff, when deciding, then the executor settles as handed off", () => {
    spec().given(ev("executor_admitted", admittedData("child"))).when((s) => decide(s, { kind: "handedOff" }, child)).then([{ type: "settled", data: { outcome: "handed_off" } }]);
  });
});

describe("decide: starting a review", () => {
  const withFindings = [
    ev("executor_admitted", admittedData("main")),
    ev("handoff_consumed", { childExecutorId: "child-1", toolUseId: "toolu_d", handoffEventId: "e", handoff: { summary: "s", findings: [{ claim: "c" }] }, handoffHash: "h", rendered: { text: "Handoff from background Child child-1: {}" } } as never),
  ];
  const ids = () => {
    let n = 0;
    return () => `id-${++n}`;
  };

  test("given consumed findings and an advisory run, when a turn begins, then review_requested names a new Reviewer", () => {
    const policy = () => ({ subject: "findings of child-1" });
    spec("main-pure")
      .given(...withFindings)
      .when((s) => decide(s, { kind: "beforeTurn", review: { mode: "advisory", policy, now: new Date(0), newId: ids() } }, main))
      .then([{ type: "review_requested", data: { reviewId: "id-1", mode: "advisory", reviewerExecutorId: "id-2", subject: "findings of child-1" } }]);
  });

  test("given reviews off, or a role that is not reviewable, when a turn begins, then nothing is requested", () => {
    const policy = () => ({ subject: "findings of child-1" });
    const given = spec("main-pure").given(...withFindings);
    given.when((s) => decide(s, { kind: "beforeTurn", review: { mode: "off", policy, now: new Date(0), newId: ids() } }, main)).then([]);
    given.when((s) => decide(s, { kind: "beforeTurn", review: { mode: "advisory", policy, now: new Date(0), newId: ids() } }, child)).then([]);
  });
});
