import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { EventStore, EventType, NewEvent } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import type { ModelRequest, ToolResultBlock } from "../../models/types.ts";
import { loadProfile, profileBinding } from "../../profiles/index.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { admittedData, eventually, handoffInput, handoffReply, ofType, runtimeWith, stalledModel, streamOf, useReply, within } from "./fixtures.ts";
import { executorStreamId } from "../../events/index.ts";

/** A read-only lookup and an effectful notice, each counting its runs. */
function tools() {
  const runs = { lookup_price: 0, send_notice: 0 };
  const registry = new ToolRegistry().register(
    defineTool({
      name: "lookup_price",
      description: "Looks up a fund's price.",
      input: z.object({ fund: z.string() }),
      effect: "read_only",
      run: () => (runs.lookup_price++, "ADIV: 412p"),
    }),
    defineTool({
      name: "send_notice",
      description: "Sends a notice to the portfolio owner.",
      input: z.object({ text: z.string() }),
      effect: "effectful",
      run: () => (runs.send_notice++, "sent"),
    }),
  );
  return { registry, runs };
}

/** The store, with the event types of every append made through it (fenced or not), in order. */
function countingAppends(store: EventStore): { store: EventStore; appends: EventType[][] } {
  const appends: EventType[][] = [];
  const wrap = (s: EventStore): EventStore => ({
    ...s,
    append: (streamId, version, events) => (appends.push(events.map((e) => e.type)), s.append(streamId, version, events)),
    withFence: (fence) => wrap(s.withFence(fence)),
  });
  return { store: wrap(store), appends };
}

/** A Child admitted by hand (as a Main's delegation would), granted both tools. */
async function admitChild(store: EventStore): Promise<string> {
  const childId = randomUUID();
  const admitted: NewEvent = {
    type: "executor_admitted",
    data: admittedData("child", {
      parentExecutorId: randomUUID(),
      task: { question: "Price ADIV and tell the owner.", context: "", doneWhen: "The owner is told." },
      profile: profileBinding(await loadProfile("general")),
      grantedTools: ["lookup_price", "send_notice"],
    }),
    metadata: { runId: randomUUID(), executorId: childId },
  };
  await store.append(executorStreamId(childId), 0, [admitted]);
  return childId;
}

const lastResults = (request: ModelRequest) => (request.messages.at(-1)!.content as ToolResultBlock[]).map((b) => [b.tool_use_id, b.content]);

forEachEngine("one row per read-only call", (ctx) => {
  test("a read-only call's intent and outcome are one row, appended with the next turn; an effectful call keeps its intent before its effect and its outcome committed before the model is called again", async () => {
    const childId = await admitChild(ctx.store);
    const { store, appends } = countingAppends(ctx.store);
    const { registry } = tools();
    const model = new ScriptedModel({
      name: "child",
      script: [
        { content: [{ type: "tool_use", id: "toolu_price", name: "lookup_price", input: { fund: "ADIV" } }] },
        { content: [{ type: "tool_use", id: "toolu_notice", name: "send_notice", input: { text: "ADIV is at 412p." } }] },
        handoffReply(handoffInput("[general] Priced and told.", [], { executionState: "partial", gaps: ["No sources."] })),
      ],
    });
    const outcome = await within(10_000, runtimeWith(store, { main: stalledModel(), child: model }, { tools: registry }).resume(childId));
    assert.equal(outcome.kind, "handoff");

    const stream = await streamOf(ctx.store, childId);
    assert.deepEqual(stream.slice(0, 6).map((e) => e.type), ["executor_admitted", "turn", "tool_completed", "turn", "tool_called", "tool_completed"]);
    // The runtime's appends: the lookup (intent and outcome, one row) rode with the second turn; the notice's intent with its turn, its outcome alone.
    assert.deepEqual(appends.slice(0, 3), [["turn"], ["tool_completed", "turn", "tool_called"], ["tool_completed"]]);
    const [lookup, notice] = ofType(stream, "tool_completed");
    assert.deepEqual(lookup.data.intent, { turn: 1, input: { fund: "ADIV" }, effect: "read_only" });
    assert.equal(notice.data.intent, undefined);
    assert.deepEqual(ofType(stream, "tool_called").map((e) => e.data.toolUseId), ["toolu_notice"]);
    // Folded ahead, the held row reached the very next request.
    assert.deepEqual(lastResults(model.requests[1]), [["toolu_price", "ADIV: 412p"]]);
    assert.deepEqual(lastResults(model.requests[2]), [["toolu_notice", "sent"]]);
    // Causes are as if intent and outcome had been appended apart: the row is caused by its turn, the next turn by the row.
    const turns = ofType(stream, "turn");
    assert.equal(lookup.metadata.causationId, turns[0].eventId);
    assert.equal(turns[1].metadata.causationId, lookup.eventId);
    assert.equal(notice.metadata.causationId, ofType(stream, "tool_called")[0].eventId);
  });

  test("crash before the row: a process that dies holding a read-only call left nothing of it; on resume the call is decided and run again, and recorded once", async () => {
    const childId = await admitChild(ctx.store);
    const first = tools();
    const seen: ModelRequest[] = [];
    const dying = new ScriptedModel({
      name: "child",
      // The first call asks for the lookup; the second never answers: the process stops there.
      policy: (request) => {
        seen.push(request);
        if (seen.length === 1) return useReply("lookup_price", { fund: "ADIV" });
        return new Promise<never>(() => {});
      },
    });
    void runtimeWith(ctx.store, { main: stalledModel(), child: dying }, { tools: first.registry }).resume(childId).catch(() => {});
    await eventually(() => seen.length === 2);
    // The second request carried the result, yet nothing of the call is in the log: not its intent, not its outcome.
    assert.equal(first.runs.lookup_price, 1);
    assert.match(JSON.stringify(lastResults(seen[1])), /ADIV: 412p/);
    assert.deepEqual((await streamOf(ctx.store, childId)).map((e) => e.type), ["executor_admitted", "turn"]);

    const second = tools();
    const model = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[general] Priced.", [], { executionState: "partial", gaps: ["No sources."] }))] });
    const outcome = await within(10_000, runtimeWith(ctx.store, { main: stalledModel(), child: model }, { tools: second.registry }).resume(childId));
    assert.equal(outcome.kind, "handoff");
    assert.equal(second.runs.lookup_price, 1, "the read-only call ran again in the new process");
    const stream = await streamOf(ctx.store, childId);
    const toolUseId = ofType(stream, "turn")[0].data.response.content.find((b) => b.type === "tool_use")!.id;
    const rows = stream.filter((e) => "toolUseId" in e.data && e.data.toolUseId === toolUseId);
    assert.deepEqual(rows.map((e) => e.type), ["tool_completed"], "recorded once: one row, no tool_called");
    assert.equal(ofType(stream, "recovered").length, 0, "nothing was in flight in the log");
    assert.deepEqual(lastResults(model.requests[0]), [[toolUseId, "ADIV: 412p"]]);
  });

  test("crash after the row: a read-only call whose row was committed is not run again on resume", async () => {
    const childId = await admitChild(ctx.store);
    const first = tools();
    const seen: ModelRequest[] = [];
    const dying = new ScriptedModel({
      name: "child",
      // The lookup, then the notice (its append carries the lookup's row), then the process stops at the third call.
      policy: (request) => {
        seen.push(request);
        if (seen.length === 1) return useReply("lookup_price", { fund: "ADIV" });
        if (seen.length === 2) return useReply("send_notice", { text: "ADIV is at 412p." });
        return new Promise<never>(() => {});
      },
    });
    void runtimeWith(ctx.store, { main: stalledModel(), child: dying }, { tools: first.registry }).resume(childId).catch(() => {});
    await eventually(() => seen.length === 3);
    assert.deepEqual(
      (await streamOf(ctx.store, childId)).map((e) => e.type),
      ["executor_admitted", "turn", "tool_completed", "turn", "tool_called", "tool_completed"],
    );

    const second = tools();
    const model = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[general] Priced and told.", [], { executionState: "partial", gaps: ["No sources."] }))] });
    const outcome = await within(10_000, runtimeWith(ctx.store, { main: stalledModel(), child: model }, { tools: second.registry }).resume(childId));
    assert.equal(outcome.kind, "handoff");
    assert.deepEqual(second.runs, { lookup_price: 0, send_notice: 0 }, "nothing ran again");
    const stream = await streamOf(ctx.store, childId);
    assert.equal(ofType(stream, "tool_completed").filter((e) => e.data.tool === "lookup_price").length, 1);
    assert.equal(ofType(stream, "recovered").length, 0);
  });
});
