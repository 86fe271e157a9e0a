import { test } from "node:test";
import assert from "node:assert/strict";
import { type ExecutorState, type GovernancePorts, limitsGovernance } from "../../actors/index.ts";
import type { Governance, ModelCallPlan, Reservation } from "../../governance/port.ts";
import { ScriptedModel } from "../../models/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { textsOf, childrenOf, delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, streamOf, useReply, within } from "./fixtures.ts";

/**
 * A governance that reserves a model call's worst case against a token
 * allowance shared by every executor, refuses what does not fit, and settles
 * the real usage: what the core must call, in order, with what.
 */
function allowanceGovernance(allowance: number) {
  let left = allowance;
  let next = 0;
  const plans: { executorId: string; plan: ModelCallPlan }[] = [];
  const governance: Governance = {
    async beforeModelCall(s: ExecutorState, plan) {
      plans.push({ executorId: s.executorId, plan });
      const worst = plan.inputTokens + plan.maxTokens;
      if (worst > left) {
        return { ok: false, limit: "run_tokens", reason: `${worst} tokens do not fit the ${left} left`, events: [] };
      }
      left -= worst;
      const reservation: Reservation = { reservationId: `res-${++next}`, model: plan.model, tokens: worst, costMicros: 0 };
      return { ok: true, reservation, events: [{ type: "budget_reserved", data: { reservationId: reservation.reservationId, purpose: "model", amount: { tokens: worst } } }] };
    },
    async afterModelCall(_s, reservation, usage) {
      if (!reservation) return [];
      const spent = usage ? usage.inputTokens + usage.outputTokens : 0;
      left += reservation.tokens - spent;
      return [{ type: "budget_settled", data: { reservationId: reservation.reservationId, actual: { tokens: spent } } }];
    },
    beforeToolCalls: limitsGovernance.beforeToolCalls,
  };
  return { governance, plans };
}

forEachEngine("governance as an async port", (ctx) => {
  test("each model call is planned and reserved before it is made; reservation, turn and settlement are one append", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) });
    const child = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[web-explorer] nothing looked up"))] });
    const { governance, plans } = allowanceGovernance(1_000_000);
    const run = await runtimeWith(ctx.store, { main, child }, { governance, maxTokens: 1000 }).startRun("What does ADIV cost?");
    assert.equal((await within(10_000, run.result)).kind, "answer");

    assert.equal(plans.length, main.requests.length + child.requests.length);
    assert.ok(plans.every((p) => p.plan.maxTokens === 1000 && p.plan.inputTokens > 0));
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    for (const turn of ofType(mainStream, "turn")) {
      const around = mainStream.filter((e) => e.streamVersion >= turn.streamVersion - 1 && e.streamVersion <= turn.streamVersion + 2).map((e) => e.type);
      assert.equal(around[0], "budget_reserved");
      assert.equal(around[1], "turn");
      assert.ok(around.slice(2).includes("budget_settled"));
    }
    const reserved = ofType(await ctx.store.readRun(run.runId), "budget_reserved");
    const settled = ofType(await ctx.store.readRun(run.runId), "budget_settled");
    assert.deepEqual(settled.map((e) => e.data.reservationId).sort(), reserved.map((e) => e.data.reservationId).sort());
  });

  test("a reservation that does not fit is refused before the call: the Child hands off what it has, naming the limit", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What is ADIV's ongoing charge?")]) });
    const child = new ScriptedModel({ name: "child", policy: () => useReply("search_corpus", { query: "ADIV" }) });
    // Main's first call fits; nothing else does.
    const { governance } = allowanceGovernance(5_000);
    const run = await runtimeWith(ctx.store, { main, child }, { governance, maxTokens: 2_000 }).startRun("What does ADIV cost?");
    const outcome = await within(10_000, run.result);

    assert.equal(child.requests.length, 0);
    const [childId] = childrenOf(await ctx.store.readRun(run.runId), run.mainExecutorId);
    const childStream = await streamOf(ctx.store, childId);
    assert.deepEqual(childStream.map((e) => e.type), ["executor_admitted", "handoff_committed", "settled"]);
    const handoff = ofType(childStream, "handoff_committed")[0].data.handoff as { caveats: string[]; confidence: string };
    assert.equal(handoff.confidence, "low");
    assert.match(handoff.caveats[0], /^stopped at the token budget of the run after 0 turns and 0 tool calls: \d+ tokens do not fit the \d+ left$/);
    // Main's own next call does not fit either: it settles with a partial answer from what it holds.
    assert.equal(outcome.kind, "answer");
    assert.equal((outcome as { partial?: boolean }).partial, true);
  });

  test("governance given as a factory gets the inbox writer: a reminder it raises before a call reaches the next request", async () => {
    let raised = 0;
    const governance = ({ post }: GovernancePorts) => ({
      ...limitsGovernance,
      async beforeModelCall(s: ExecutorState, plan: ModelCallPlan) {
        if (s.turn === 0) {
          const posted = await post(s.executorId, [
            { type: "reminder_raised", data: { reminderId: `rem-${s.executorId}`, key: "first-call", text: "This is your first call.", facts: { turn: 0 } } },
          ]);
          if (posted.ok) raised++;
        }
        return limitsGovernance.beforeModelCall(s, plan);
      },
    });
    const main = new ScriptedModel({
      name: "main",
      script: [
        useReply("search_corpus", { query: "ADIV" }),
        useReply("answer", { summary: "(scripted) judgment", sections: [{ heading: "View", claims: [{ text: "Depends.", basis: "judgment", citations: [] }] }] }),
      ],
    });
    const run = await runtimeWith(ctx.store, { main, child: main }, { governance }).startRun("What does ADIV cost?");
    assert.equal((await within(10_000, run.result)).kind, "answer");
    assert.equal(raised, 1);
    const reminderTexts = (i: number) => textsOf(main.requests[i]).filter((t) => t.includes("This is your first call."));
    assert.equal(reminderTexts(0).length, 0);
    assert.equal(reminderTexts(1).length, 1);
    const stream = await streamOf(ctx.store, run.mainExecutorId);
    assert.deepEqual(ofType(stream, "reminder_delivered").map((e) => e.data.turn), [2]);
  });
});
