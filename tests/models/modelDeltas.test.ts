import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedModel } from "../../models/scriptedModel.ts";
import type { ModelDelta } from "../../models/types.ts";
import { reply } from "../../models/testing/wireBehaviours.ts";
import { createAnswerDeltas, publishingMainDeltas, type AnswerDelta } from "../../runs/host/answerDeltas.ts";
import { modelAt, request, withWireServer, within } from "./fixtures.ts";

test("AnthropicModel hands out the reply as it streams: text pieces and the tool input's JSON pieces, named by tool", async () => {
  const input = { summary: "ADIV overlaps 12% with the portfolio.", sections: [{ heading: "Fees", claims: [] }] };
  await withWireServer(
    [reply([{ type: "text", text: "Here is what the Children found, in full." }, { type: "tool_use", id: "toolu_01", name: "answer", input }], { chunks: 5 })],
    async (server) => {
      const deltas: ModelDelta[] = [];
      const response = await within(5_000, modelAt(server.url).complete(request(), { onDelta: (d) => deltas.push(d) }));
      const texts = deltas.filter((d) => d.type === "text");
      const json = deltas.filter((d) => d.type === "tool_input");
      assert.ok(texts.length > 1, `the text came in pieces (${texts.length})`);
      assert.equal(texts.map((d) => d.text).join(""), "Here is what the Children found, in full.");
      assert.ok(json.length > 1, `the input came in pieces (${json.length})`);
      assert.ok(json.every((d) => d.tool === "answer"));
      assert.deepEqual(JSON.parse(json.map((d) => d.partialJson).join("")), input);
      assert.deepEqual(response.content[1], { type: "tool_use", id: "toolu_01", name: "answer", input });
    },
  );
});

test("a scripted model hands each block out whole, and Main's publisher says it was scripted; other tools' inputs are not the answer", async () => {
  const model = new ScriptedModel({
    script: [
      { content: [{ type: "text", text: "Delegating." }, { type: "tool_use", id: "t1", name: "delegate", input: { question: "q" } }] },
      { content: [{ type: "tool_use", id: "t2", name: "answer", input: { summary: "s" } }] },
    ],
  });
  const bus = createAnswerDeltas();
  const heard: AnswerDelta[] = [];
  const off = bus.subscribe("run-1", (d) => heard.push(d));
  const main = publishingMainDeltas(model, bus, { runId: "run-1", executorId: "main-1" });
  await main.complete(request());
  await main.complete(request());
  off();
  await main.complete(request()).catch(() => {}); // nobody listens: nothing heard
  assert.deepEqual(heard, [
    { runId: "run-1", executorId: "main-1", call: 1, delta: { type: "text", text: "Delegating." }, scripted: true },
    { runId: "run-1", executorId: "main-1", call: 2, delta: { type: "answer_json", partialJson: '{"summary":"s"}' }, scripted: true },
  ]);
});
