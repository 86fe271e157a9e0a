import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ExecutorActor, foldExecutor, requestDigest } from "../../actors/index.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { citationsIn, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import {
  admittedData,
  childrenOf,
  delegatingMain,
  delegation,
  firstMessageText,
  gate,
  handoffInput,
  handoffsIn,
  handoffReply,
  ofType,
  recorded,
  runtimeWith,
  streamOf,
  textTurn,
  useReply,
  within,
} from "./fixtures.ts";

forEachEngine("turns are numbered per executor, not per run; background Children", (ctx) => {
  test("global order Main turn 1, Child turn 1, Main turn 2 is recorded and folded with per-executor turn numbers", async () => {
    // Main delegates in the background (wait: false), so it may take its turn 2 while the Child works.
    // Gates pin the order: Main's 2nd reply waits for the Child's turn 1; the Child's 2nd for Main's turn 2.
    const childTurn1 = gate();
    const mainTurn2 = gate();
    let mainId = "";
    const task = delegation("What is ADIV's ongoing charge?", "web-explorer", { wait: false });
    const delegateThenAnswer = delegatingMain([task]);
    const mainPolicy: ScriptPolicy = async (request, call) => {
      if (call === 1) {
        await childTurn1.opened;
        return "(scripted) The Child is still working; nothing else to do until its handoff arrives.";
      }
      return delegateThenAnswer(request, call);
    };
    const childPolicy: ScriptPolicy = async (request) => {
      if (turnsTaken(request) === 0) return useReply("search_corpus", { query: "ADIV ongoing charge" });
      await mainTurn2.opened;
      const [search] = resultsOf(request, "search_corpus");
      return handoffReply(
        handoffInput("[web-explorer] The fee cut is announced.", [
          { claim: "ADIV's ongoing charge is cut to 0.29%.", evidence: { toolResults: [search.id], citations: citationsIn(search.output).slice(0, 1) }, confidence: "medium" },
        ]),
      );
    };
    const main = new ScriptedModel({ name: "main", policy: mainPolicy });
    const child = new ScriptedModel({ name: "child", policy: childPolicy });
    const runtime = runtimeWith(
      ctx.store,
      { main, child },
      {
        onEvent: (e) => {
          if (e.type !== "turn") return;
          if (e.metadata.executorId === mainId && e.data.turn === 2) mainTurn2.open();
          if (e.metadata.executorId !== mainId && e.data.turn === 1) childTurn1.open();
        },
      },
    );
    const run = await runtime.startRun("What does ADIV cost?");
    mainId = run.mainExecutorId;
    const outcome = await within(10_000, run.result);
    assert.equal(outcome.kind, "answer");

    const events = await ctx.store.readRun(run.runId);
    const [childId] = childrenOf(events, mainId);
    const turns = ofType(events, "turn");
    const who = (e: RecordedEvent) => (e.metadata.executorId === mainId ? "main" : e.metadata.executorId === childId ? "child" : "?");
    // Global order of every turn in the run, with each executor's own turn number.
    assert.deepEqual(turns.map((e) => [who(e), e.data.turn]), [
      ["main", 1],
      ["child", 1],
      ["main", 2],
      ["child", 2],
      ["main", 3],
    ]);
    assert.ok(turns.every((e, i) => i === 0 || turns[i - 1].globalPosition < e.globalPosition));

    // Each stream folds: the machine and the plain reducer accept the per-executor numbering.
    const mainStream = await streamOf(ctx.store, mainId);
    const childStream = await streamOf(ctx.store, childId);
    const mainFold = foldExecutor(mainStream);
    assert.equal(mainFold.status, "settled");
    assert.equal(mainFold.state.turn, 3);
    assert.equal(new ExecutorActor(mainStream).state.turn, 3);
    const childFold = foldExecutor(childStream);
    assert.equal(childFold.status, "settled");
    assert.equal(childFold.state.turn, 2);
    assert.equal(new ExecutorActor(childStream).state.turn, 2);

    // The background handoff reached Main with its third request, and the rebuilt transcript matches what was sent.
    assert.equal(ofType(mainStream, "handoff_consumed").length, 1);
    const delivered = main.requests[2].messages.at(-1)!;
    assert.ok(Array.isArray(delivered.content));
    assert.ok(delivered.content.some((b) => b.type === "text" && b.text.startsWith(`Handoff from background Child ${childId}:`)));
    const transcript = await runtime.transcript(mainId);
    assert.deepEqual(transcript.turns.map((t) => t.digestMatches), [true, true, true]);
    assert.deepEqual(transcript.turns.map((t) => requestDigest(t.request)), main.requests.map(requestDigest));
  });

  test("idle turns spent waiting for background handoffs are not counted as failed answer attempts", async () => {
    // Three background Children; Child k may hand off only after Main's turn k+1, so Main waits idle three times.
    const gates = [gate(), gate(), gate()];
    let mainId = "";
    const tasks = [1, 2, 3].map((k) => delegation(`Background question ${k}?`, "web-explorer", { wait: false }));
    const delegateThenAnswer = delegatingMain(tasks);
    const main = new ScriptedModel({
      name: "main",
      policy: (request, call) =>
        call > 0 && handoffsIn(request).length < 3 ? "(scripted) Waiting for the other Children." : delegateThenAnswer(request, call),
    });
    const child = new ScriptedModel({
      name: "child",
      policy: async (request) => {
        const k = Number(/Background question (\d)/.exec(firstMessageText(request))![1]);
        await gates[k - 1].opened;
        return handoffReply(handoffInput(`[web-explorer] Child ${k} found nothing.`));
      },
    });
    const runtime = runtimeWith(ctx.store, { main, child }, {
      onEvent: (e) => {
        if (e.type === "turn" && e.metadata.executorId === mainId && e.data.turn >= 2) gates[e.data.turn - 2]?.open();
      },
    });
    const run = await runtime.startRun("Three things in the background, please.");
    mainId = run.mainExecutorId;
    const outcome = await within(10_000, run.result);

    const mainStream = await streamOf(ctx.store, mainId);
    assert.deepEqual(
      mainStream.filter((e) => e.type === "turn" || e.type === "handoff_consumed" || e.type === "settled" || e.type === "failed").map((e) => e.type),
      ["turn", "turn", "handoff_consumed", "turn", "handoff_consumed", "turn", "handoff_consumed", "turn", "settled"],
    );
    assert.equal(outcome.kind, "answer", `Main ended with ${JSON.stringify(outcome)}`);
    assert.equal(new ExecutorActor(mainStream).state.repairs, 0);
  });
});

describe("the fold refuses a turn out of its executor's sequence (pure)", () => {
  const admitted = (id: string, role: "main" | "child") => recorded(id, 1, "executor_admitted", admittedData(role));

  test("Main turn 3 right after Main turn 1 is refused, by the fold and by the live actor", () => {
    const stream = [admitted("main-a", "main"), recorded("main-a", 2, "turn", textTurn(1)), recorded("main-a", 3, "turn", textTurn(3))];
    assert.throws(() => foldExecutor(stream), /turn 3 folded after turn 1 of main-a/);
    assert.throws(() => new ExecutorActor(stream), /turn 3 folded after turn 1 of main-a/);
    // The same stream numbered per executor folds.
    const ok = [...stream.slice(0, 2), recorded("main-a", 3, "turn", textTurn(2))];
    assert.equal(foldExecutor(ok).state.turn, 2);
    assert.equal(new ExecutorActor(ok).state.turn, 2);
  });

  test("a Child whose first turn carries the run-global count (2, after Main's turn 1) is refused", () => {
    // Global order: Main turn (position 2), Child turn (position 3). A run-wide counter would number the Child's turn 2.
    const child = [admitted("child-a", "child"), recorded("child-a", 2, "turn", textTurn(2), 3)];
    assert.throws(() => foldExecutor(child), /turn 2 folded after turn 0 of child-a/);
    assert.throws(() => new ExecutorActor(child), /turn 2 folded after turn 0 of child-a/);
    assert.equal(foldExecutor([child[0], recorded("child-a", 2, "turn", textTurn(1), 3)]).state.turn, 1);
  });

  test("a repeated turn number is refused too", () => {
    const stream = [admitted("main-b", "main"), recorded("main-b", 2, "turn", textTurn(1)), recorded("main-b", 3, "turn", textTurn(1))];
    assert.throws(() => foldExecutor(stream), /turn 1 folded after turn 1 of main-b/);
  });
});
