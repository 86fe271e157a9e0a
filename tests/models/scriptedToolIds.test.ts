import { test } from "node:test";
import assert from "node:assert/strict";
import { ScriptedModel } from "../../models/scriptedModel.ts";
import type { Message, ModelRequest, ModelResponse } from "../../models/types.ts";
import { request } from "./fixtures.ts";

/** A policy that searches on every turn, with the ids left to the model. */
const searcher = () => new ScriptedModel({ policy: () => ({ content: [{ type: "tool_use", name: "search", input: {} }, { type: "tool_use", name: "search", input: {} }] }) });

/** The request of the next turn: the reply and a result for each of its tool uses appended. */
function nextRequest(previous: ModelRequest, reply: ModelResponse): ModelRequest {
  const results: Message = {
    role: "user",
    content: reply.content.flatMap((b) => (b.type === "tool_use" ? [{ type: "tool_result" as const, tool_use_id: b.id, content: "ok" }] : [])),
  };
  return { ...previous, messages: [...previous.messages, { role: "assistant", content: reply.content }, results] };
}

const idsOf = (r: ModelResponse) => r.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));

test("scripted tool use ids are unique per executor and turn, even when another process (a fresh model) takes the executor over", async () => {
  // Given: turn 1 of an executor answered in one process
  const first = request();
  const turn1 = await searcher().complete(first);
  // When: its turn 2 is answered by a model that has never seen it (the run was taken over)
  const turn2 = await searcher().complete(nextRequest(first, turn1));
  // Then: no id of turn 2 repeats one of turn 1, nor one of its own
  const ids = [...idsOf(turn1), ...idsOf(turn2)];
  assert.equal(new Set(ids).size, 4, `ids repeat: ${ids.join(", ")}`);
});

test("scripted tool use ids are deterministic on replay: the same request gives the same ids in any process", async () => {
  const asked = nextRequest(request(), await searcher().complete(request()));
  const here = searcher();
  await here.complete(request({ system: "another executor" })); // this process has answered other executors meanwhile
  assert.deepEqual(idsOf(await here.complete(asked)), idsOf(await searcher().complete(asked)));
});

test("two executors with the same turn get different ids", async () => {
  const a = idsOf(await searcher().complete(request({ messages: [{ role: "user", content: "Task A" }] })));
  const b = idsOf(await searcher().complete(request({ messages: [{ role: "user", content: "Task B" }] })));
  assert.equal(new Set([...a, ...b]).size, 4);
});
