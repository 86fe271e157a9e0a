import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { randomUUID } from "node:crypto";
import type { EventDataInput, EventType, NewEvent } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import type { ToolResultBlock } from "../../models/types.ts";
import { loadProfile, profileBinding } from "../../profiles/index.ts";
import { lastResultWasError } from "../../scenarios/requestView.ts";
import { ToolRegistry, createCorpusTools, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import {
  admittedData,
  childrenOf,
  delegatingMain,
  delegation,
  eventually,
  handoffInput,
  handoffReply,
  ofType,
  runtimeWith,
  stalledModel,
  streamOf,
  within,
} from "./fixtures.ts";
import { executorStreamId } from "../../events/index.ts";

const ZERO_HASH = "0".repeat(64);

/** An effectful tool that counts its runs, so a test can see it never ran again. */
function noticeTool() {
  const counter = { runs: 0 };
  const tool = defineTool({
    name: "send_notice",
    description: "Sends a notice to the portfolio owner.",
    input: z.object({ text: z.string().min(1) }),
    effect: "effectful",
    run: () => {
      counter.runs++;
      return "sent";
    },
  });
  return { registry: new ToolRegistry().register(tool, ...createCorpusTools()), counter };
}

forEachEngine("recovery", (ctx) => {
  test("a tool call recorded without an outcome is marked effect_unknown on resume, never re-run, and the model is told", async () => {
    const runId = randomUUID();
    const childId = randomUUID();
    const toolUseId = "toolu_before_crash";
    const meta = { runId, executorId: childId };
    const draft = <T extends EventType>(type: T, data: EventDataInput<T>) => ({ type, data, metadata: meta }) as NewEvent;
    // What a process wrote before it died: admission, the turn asking for send_notice, the intent. No outcome.
    await ctx.store.append(executorStreamId(childId), 0, [
      draft(
        "executor_admitted",
        admittedData("child", {
          parentExecutorId: randomUUID(),
          task: { question: "Tell the owner the fee changes on 1 October.", context: "", doneWhen: "The notice is sent." },
          profile: profileBinding(await loadProfile("general")),
          grantedTools: ["send_notice"],
        }),
      ),
      draft("turn", {
        turn: 1,
        request: { model: "test-child", messageCount: 1, toolNames: ["send_notice", "handoff"], digest: ZERO_HASH },
        response: { content: [{ type: "tool_use", id: toolUseId, name: "send_notice", input: { text: "ADIV's fee falls to 0.29%." } }], stopReason: "tool_use" },
        usage: { inputTokens: 100, outputTokens: 20 },
        model: "scripted:child",
        provider: "scripted",
        scripted: true,
        latencyMs: 1,
      }),
      draft("tool_called", { turn: 1, toolUseId, tool: "send_notice", input: { text: "ADIV's fee falls to 0.29%." }, effect: "effectful" }),
    ]);

    const { registry, counter } = noticeTool();
    const model = new ScriptedModel({
      name: "child",
      policy: (request) =>
        handoffReply(
          handoffInput("[general] The notice may or may not have been sent.", [], {
            executionState: lastResultWasError(request) ? "unknown_effects" : "completed",
            gaps: ["Whether send_notice ran is unknown."],
          }),
        ),
    });
    const runtime = runtimeWith(ctx.store, { main: stalledModel(), child: model }, { tools: registry });
    const outcome = await within(10_000, runtime.resume(childId));

    assert.equal(counter.runs, 0, "the tool must not run again");
    const stream = await streamOf(ctx.store, childId);
    assert.deepEqual(stream.map((e) => e.type), [
      "executor_admitted",
      "turn",
      "tool_called",
      "effect_unknown",
      "recovered",
      "turn",
      "handoff_committed",
      "settled",
    ]);
    const [unknown] = ofType(stream, "effect_unknown");
    assert.deepEqual(
      { toolUseId: unknown.data.toolUseId, tool: unknown.data.tool, effect: unknown.data.effect },
      { toolUseId, tool: "send_notice", effect: "effectful" },
    );
    const [recovered] = ofType(stream, "recovered");
    assert.deepEqual(recovered.data, { fromVersion: 3, unknownEffects: [toolUseId], rerun: [] });
    assert.equal(ofType(stream, "turn")[1].data.turn, 2);

    // The model's next request carries an error result saying the outcome is unknown.
    assert.equal(model.requests.length, 1);
    const last = model.requests[0].messages.at(-1)!;
    assert.equal(last.role, "user");
    const [result] = last.content as ToolResultBlock[];
    assert.equal(result.tool_use_id, toolUseId);
    assert.equal(result.is_error, true);
    assert.match(result.content, /The outcome of send_notice \(toolu_before_crash\) was never recorded/);
    assert.match(result.content, /It was not run again; check its effect before relying on it\./);

    assert.equal(outcome.kind, "handoff");
    assert.equal(outcome.kind === "handoff" && outcome.handoff.executionState, "unknown_effects");
    // The handoff names the unknown effect as a gap, whatever the model wrote.
    assert.ok(outcome.kind === "handoff" && (outcome.handoff.gaps as string[]).some((g) => g.includes(`send_notice (${toolUseId})`)));
    // The request after recovery is exactly what the log rebuilds.
    assert.equal((await runtime.transcript(childId)).turns[1].digestMatches, true);
  });

  test("a Main resumed while waiting on a delegate re-attaches to its Child instead of admitting a new one", async () => {
    const task = delegation("What are ADIV's fees?", "general");
    const firstCalls: string[] = [];
    const first = runtimeWith(ctx.store, {
      main: new ScriptedModel({ name: "main", policy: delegatingMain([task]) }),
      child: stalledModel((r) => firstCalls.push(r.system)),
    });
    const run = await first.startRun("What does ADIV cost?");
    await eventually(() => firstCalls.length === 1);
    // The first process is gone; a new one resumes Main from the log.
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([task]) });
    const child = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[general] nothing found."))] });
    const second = runtimeWith(ctx.store, { main, child });
    const outcome = await within(10_000, second.resume(run.mainExecutorId));

    assert.equal(outcome.kind, "answer");
    const events = await ctx.store.readRun(run.runId);
    const children = childrenOf(events, run.mainExecutorId);
    assert.equal(children.length, 1, "the Child was not admitted twice");
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    assert.equal(ofType(mainStream, "tool_called").length, 1);
    assert.equal(ofType(mainStream, "effect_unknown").length, 0);
    assert.equal(ofType(mainStream, "recovered").length, 0);
    assert.deepEqual(ofType(mainStream, "handoff_consumed").map((e) => e.data.childExecutorId), children);
    // Only the resumed Main's answering turn was asked of the new Main model; the Child ran once, in the new process.
    assert.equal(main.requests.length, 1);
    assert.equal(child.requests.length, 1);
  });

  test("read-only and idempotent calls in flight at a crash are run again on resume, the idempotent one with the key its first run carried", async () => {
    const runId = randomUUID();
    const childId = randomUUID();
    const meta = { runId, executorId: childId };
    const draft = <T extends EventType>(type: T, data: EventDataInput<T>) => ({ type, data, metadata: meta }) as NewEvent;
    const uses = [
      { type: "tool_use" as const, id: "toolu_price", name: "lookup_price", input: { fund: "ADIV" } },
      { type: "tool_use" as const, id: "toolu_note", name: "upsert_note", input: { fund: "ADIV" } },
    ];
    await ctx.store.append(executorStreamId(childId), 0, [
      draft(
        "executor_admitted",
        admittedData("child", {
          parentExecutorId: randomUUID(),
          task: { question: "Price ADIV and note it.", context: "", doneWhen: "Noted." },
          profile: profileBinding(await loadProfile("general")),
          grantedTools: ["lookup_price", "upsert_note"],
        }),
      ),
      draft("turn", {
        turn: 1,
        request: { model: "test-child", messageCount: 1, toolNames: ["lookup_price", "upsert_note", "handoff"], digest: ZERO_HASH },
        response: { content: uses, stopReason: "tool_use" },
        usage: { inputTokens: 100, outputTokens: 20 },
        model: "scripted:child",
        provider: "scripted",
        scripted: true,
        latencyMs: 1,
      }),
      draft("tool_called", { turn: 1, toolUseId: "toolu_price", tool: "lookup_price", input: { fund: "ADIV" }, effect: "read_only" }),
      draft("tool_called", { turn: 1, toolUseId: "toolu_note", tool: "upsert_note", input: { fund: "ADIV" }, effect: "idempotent" }),
    ]);
    // Every run of a tool, with the key it was given; `hang` makes a run never return (the process then dies).
    const runs: { tool: string; key: string }[] = [];
    const tools = (hang: boolean) =>
      new ToolRegistry().register(
        defineTool({
          name: "lookup_price",
          description: "Looks up a fund's price.",
          input: z.object({ fund: z.string() }),
          effect: "read_only",
          run: (_input, c) => (runs.push({ tool: "lookup_price", key: c.idempotencyKey }), hang ? new Promise<string>(() => {}) : "ADIV: 412p"),
        }),
        defineTool({
          name: "upsert_note",
          description: "Writes a note under a key (the same key twice writes it once).",
          input: z.object({ fund: z.string() }),
          effect: "idempotent",
          run: (_input, c) => (runs.push({ tool: "upsert_note", key: c.idempotencyKey }), hang ? new Promise<string>(() => {}) : "noted"),
        }),
      );
    const handoff = () => handoffReply(handoffInput("[general] Priced and noted.", [], { executionState: "partial", gaps: ["No sources."] }));
    // A first process resumes the Child, starts both calls again and dies before either returns.
    const first = runtimeWith(ctx.store, { main: stalledModel(), child: new ScriptedModel({ name: "child", policy: handoff }) }, { tools: tools(true) });
    void first.resume(childId).catch(() => {});
    await eventually(() => runs.length === 2);
    // A second process resumes it again: both run once more, with the same keys, and complete.
    const model = new ScriptedModel({ name: "child", policy: handoff });
    const second = runtimeWith(ctx.store, { main: stalledModel(), child: model }, { tools: tools(false) });
    const outcome = await within(10_000, second.resume(childId));

    assert.equal(outcome.kind, "handoff");
    const stream = await streamOf(ctx.store, childId);
    const intents = Object.fromEntries(ofType(stream, "tool_called").map((e) => [e.data.tool, e.eventId]));
    const byTool = (tool: string) => runs.filter((r) => r.tool === tool).map((r) => r.key);
    assert.deepEqual(byTool("upsert_note"), [intents.upsert_note, intents.upsert_note], "the re-run carries the first run's key, the intent's id");
    assert.deepEqual(byTool("lookup_price"), [intents.lookup_price, intents.lookup_price]);
    assert.deepEqual(ofType(stream, "recovered").map((e) => e.data), [
      { fromVersion: 4, unknownEffects: [], rerun: ["toolu_price", "toolu_note"] },
      { fromVersion: 5, unknownEffects: [], rerun: ["toolu_price", "toolu_note"] },
    ]);
    assert.equal(ofType(stream, "effect_unknown").length, 0);
    assert.deepEqual(ofType(stream, "tool_completed").map((e) => [e.data.toolUseId, e.data.output]), [
      ["toolu_price", "ADIV: 412p"],
      ["toolu_note", "noted"],
    ]);
    // The model saw both results, not an error.
    const results = model.requests[0].messages.at(-1)!.content as ToolResultBlock[];
    assert.deepEqual(results.map((r) => [r.tool_use_id, r.is_error ?? false]), [["toolu_price", false], ["toolu_note", false]]);
  });
});
