import { test } from "node:test";
import assert from "node:assert/strict";
import { intentOf } from "../../events/index.ts";
import { z } from "zod";
import { Runtime } from "../../actors/index.ts";
import { createRunGovernance, readRunBudget, resolveCaps } from "../../governance/index.ts";
import { type ModelRequest, ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { ofType, within } from "../actors/fixtures.ts";
import { resultsOf, turnsTaken } from "../../scenarios/requestView.ts";

/** A tool whose output is tiny, so requests barely grow and the budget moves by the scripted usage alone. */
const note = defineTool({
  name: "note",
  description: "Writes a note to self.",
  input: z.object({ text: z.string() }),
  effect: "read_only",
  run: () => "noted",
});

const REMINDER = "[Ariadne runtime reminder, not from the user]";
const remindersIn = (request: ModelRequest): string[] =>
  request.messages.flatMap((m) =>
    m.role === "user" && Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === "text" && b.text.startsWith(REMINDER) ? [b.text] : [])) : [],
  );
const answer = { summary: "(scripted) judgment", sections: [{ heading: "View", claims: [{ text: "Depends.", basis: "judgment", citations: [] }] }] };

/** Main takes notes until a request tells it 80% of the run's tokens are spent, then answers. */
const untilEightyPercent: ScriptPolicy = (request) =>
  remindersIn(request).some((r) => r.includes("past 80%"))
    ? { content: [{ type: "tool_use", name: "answer", input: answer }] }
    : { content: [{ type: "tool_use", name: "note", input: { text: "still working" } }] };

const handoff = {
  summary: "(scripted) noted once.",
  findings: [{ claim: "A note was taken.", evidence: { toolResults: [], citations: [] }, confidence: "high" }],
  measurementBasis: { sources: [], dates: [], units: [], scope: "a scripted check" },
  artifacts: [],
  gaps: [],
  executionState: "completed",
  confidence: "high",
  caveats: [],
};

/** Main delegates one Child and answers as soon as its handoff is back: it has one request to see any reminder in. */
const delegateThenAnswer: ScriptPolicy = (request) =>
  request.tools.some((t) => t.name === "answer")
    ? resultsOf(request, "delegate").length === 0
      ? { content: [{ type: "tool_use", name: "delegate", input: { question: "Take one note.", context: "A governance test.", done_when: "Noted.", profile: "general", tools: ["note"] } }] }
      : { content: [{ type: "tool_use", name: "answer", input: answer }] }
    : { content: [{ type: "tool_use", name: "handoff", input: handoff }] };

forEachEngine("a run under its governance", (ctx) => {
  /** Main asks for `calls` notes in its first turn, then answers: a turn's calls are decided together, before any runs. */
  async function notesInOneTurn(calls: number, maxToolCalls: number) {
    const main = new ScriptedModel({
      name: "main",
      policy: (request) =>
        turnsTaken(request) === 0
          ? { content: Array.from({ length: calls }, (_, i) => ({ type: "tool_use" as const, name: "note", input: { text: `note ${i}` } })) }
          : { content: [{ type: "tool_use", name: "answer", input: answer }] },
    });
    const runtime = new Runtime({
      store: ctx.store,
      models: { main, child: main },
      modelNames: { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(note),
      governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post, caps: resolveCaps({ main: { maxToolCalls } }) }),
    });
    const run = await runtime.startRun("How many notes fit?");
    const outcome = await within(30_000, run.result);
    return { outcome, events: await ctx.store.readRun(run.runId) };
  }

  test("a turn's tool calls are counted once: three calls in one turn under a limit of three all run", async () => {
    const { outcome, events } = await notesInOneTurn(3, 3);
    assert.equal(events.filter((e) => intentOf(e)).length, 3);
    assert.deepEqual(ofType(events, "tool_failed").map((e) => e.data.message), []);
    assert.equal(ofType(events, "tool_completed").length, 3);
    assert.equal(outcome.kind, "answer");
    assert.notEqual((outcome as { partial?: boolean }).partial, true, "Main answered on its own");
  });

  test("four calls in one turn under a limit of three: exactly the fourth is refused, naming 3 of 3", async () => {
    const { events } = await notesInOneTurn(4, 3);
    assert.equal(events.filter((e) => intentOf(e)).length, 3);
    const refused = ofType(events, "tool_failed");
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.data.limit, "executor_tool_calls");
    assert.match(refused[0]!.data.message, /tool call limit reached \(3 of 3 calls/);
    assert.equal(ofType(events, "budget_refused").length, 1);
  });

  test("a fact raised before a model call (a Child finished) is in that very request, delivered with its turn", async () => {
    const model = new ScriptedModel({ name: "both", policy: delegateThenAnswer });
    const runtime = new Runtime({
      store: ctx.store,
      models: { main: model, child: model },
      modelNames: { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(note),
      governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post }),
    });
    const run = await runtime.startRun("Does the Child's end reach Main in time?");
    const outcome = await within(30_000, run.result);
    assert.equal(outcome.kind, "answer");

    const events = await ctx.store.readRun(run.runId);
    const finished = ofType(events, "reminder_raised").filter((e) => e.data.key.startsWith("child_finished:"));
    assert.equal(finished.length, 1, "one Child finished, one fact");
    const [delivered] = ofType(events, "reminder_delivered").filter((e) => e.data.reminderId === finished[0]!.data.reminderId);
    assert.ok(delivered, "the fact was delivered, although Main answered on the turn it was raised for");
    const mainRequests = model.requests.filter((r) => r.tools.some((t) => t.name === "answer"));
    assert.equal(mainRequests.length, 2);
    assert.equal(delivered.data.turn, 2);
    assert.ok(remindersIn(mainRequests[1]!).some((t) => t.includes(finished[0]!.data.text)), "the request Main answered carried it");
    // Raised, delivered and the turn that carried it are one append, in that order.
    const mainTurn2 = ofType(events, "turn").find((e) => e.metadata.executorId === delivered.metadata.executorId && e.data.turn === 2)!;
    const inOrder = [finished[0]!, delivered, mainTurn2];
    assert.equal(new Set(inOrder.map((e) => e.streamId)).size, 1);
    assert.ok(inOrder.every((e, i) => i === 0 || e.streamVersion > inOrder[i - 1]!.streamVersion), "raised, then delivered, then the turn");
    assert.equal(new Set(inOrder.map((e) => e.recordedAt.getTime())).size, 1, "one append");
  });


  test("the 80% budget fact is raised once and delivered once, in the request the model then answered", async () => {
    const main = new ScriptedModel({ name: "main", policy: untilEightyPercent, usage: { inputTokens: 1_000, outputTokens: 0 } });
    const caps = resolveCaps({ run: { maxTokens: 10_000 } });
    const runtime = new Runtime({
      store: ctx.store,
      models: { main, child: main },
      modelNames: { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(note),
      maxTokens: 50,
      governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post, caps }),
    });
    const run = await runtime.startRun("How far does the budget go?");
    const outcome = await within(30_000, run.result);
    assert.equal(outcome.kind, "answer");
    assert.notEqual((outcome as { partial?: boolean }).partial, true, "Main answered on its own, not stopped by a limit");

    const events = await ctx.store.readRun(run.runId);
    const raised = ofType(events, "reminder_raised");
    const eighty = raised.filter((e) => e.data.key.endsWith("@80") && e.data.key.startsWith("run_tokens"));
    assert.equal(eighty.length, 1, `raised: ${raised.map((e) => e.data.key).join(", ")}`);
    const delivered = ofType(events, "reminder_delivered").filter((e) => e.data.reminderId === eighty[0]!.data.reminderId);
    assert.equal(delivered.length, 1);

    // The delivery names the turn whose request carried it: that request, and only it, holds the text.
    const turn = delivered[0]!.data.turn;
    const carrying = main.requests.map((r, i) => [i + 1, remindersIn(r).some((t) => t.includes(eighty[0]!.data.text))] as const);
    assert.deepEqual(carrying.filter(([, has]) => has).map(([n]) => n), [turn]);
    assert.equal(main.requests.length, turn, "the model answered the request that carried the 80% fact");

    // Every reservation was settled, and the ledger agrees with the log.
    assert.equal(ofType(events, "budget_reserved").length, ofType(events, "budget_settled").length);
    const budget = await readRunBudget(ctx.store.database, run.runId);
    assert.equal(budget!.totals.reservedTokens, 0);
    assert.equal(budget!.openReservations, 0);
    assert.equal(budget!.totals.spentTokens, main.requests.length * 1_000);
  });

  test("waiting on the model counts against the wall clock: a call slower than the executor's time left is cut at its deadline", async () => {
    const slow = new ScriptedModel({ name: "main", script: [{ content: [{ type: "tool_use", name: "answer", input: answer }] }], latencyMs: 60_000 });
    const caps = resolveCaps({ main: { wallClockMs: 500 } });
    const runtime = new Runtime({
      store: ctx.store,
      models: { main: slow, child: slow },
      modelNames: { main: "scripted:main", child: "scripted:child" },
      tools: new ToolRegistry().register(note),
      governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post, caps }),
    });
    const run = await runtime.startRun("Is there time?");
    const outcome = await within(20_000, run.result);
    const events = await ctx.store.readRun(run.runId);
    const [failed] = ofType(events, "turn_failed");
    assert.equal(failed?.data.kind, "deadline", JSON.stringify(failed?.data));
    assert.equal(ofType(events, "turn").length, 0, "the slow reply never arrived");
    assert.equal(outcome.kind, "answer");
    assert.equal((outcome as { partial?: boolean }).partial, true, "Main settled with a partial answer instead of waiting");
  });
});
