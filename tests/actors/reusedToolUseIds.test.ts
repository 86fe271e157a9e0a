import { test } from "node:test";
import assert from "node:assert/strict";
import { refuseReusedToolUseIds } from "../../actors/decide/index.ts";
import type { EventData } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import type { AssistantBlock } from "../../models/types.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { ev, spec } from "./deciderSpec.ts";
import { admittedData, ofType, runtimeWith, streamOf } from "./fixtures.ts";

const use = (id: string): AssistantBlock => ({ type: "tool_use", id, name: "search_corpus", input: { query: "q" } });

function searchTurn(turn: number, ids: string[]): EventData<"turn"> {
  return {
    turn,
    request: { model: "test-model", messageCount: 1, toolNames: [], digest: "0".repeat(64) },
    response: { content: ids.map(use), stopReason: "tool_use" },
    usage: { inputTokens: 10, outputTokens: 2 },
    model: "scripted:test",
    provider: "scripted",
    scripted: true,
    latencyMs: 0,
  };
}

/** A Child that searched once (tool use toolu_a), and got its result. */
const searchedOnce = () => [
  ev("executor_admitted", admittedData("child")),
  ev("turn", searchTurn(1, ["toolu_a"])),
  ev("tool_called", { turn: 1, toolUseId: "toolu_a", tool: "search_corpus", input: { query: "q" }, effect: "read_only" }),
  ev("tool_completed", { toolUseId: "toolu_a", tool: "search_corpus", output: "r", artifacts: [], sources: [] }),
];

test("given a Child that used toolu_a, when a reply uses toolu_a again, then it is refused as a failed model call, retryable, naming the id", () => {
  spec()
    .given(...searchedOnce())
    .when((s) => refuseReusedToolUseIds(s, [use("toolu_b"), use("toolu_a")]))
    .then({
      type: "turn_failed",
      data: {
        turn: 2,
        attempt: 1,
        kind: "reused_tool_use_id",
        message: "the reply reuses tool use id toolu_a, which this executor already used; ids must be unique per executor, so the reply is not recorded",
        retryable: true,
      },
    });
});

test("given a Child, when one reply uses an id twice, then it is refused", () => {
  spec()
    .given(ev("executor_admitted", admittedData("child")))
    .when((s) => refuseReusedToolUseIds(s, [use("toolu_x"), use("toolu_x")])?.data)
    .thenMatches((d) => assert.match((d as { message: string }).message, /reuses tool use id toolu_x/));
});

test("given a Child that used toolu_a, when a reply uses new ids only (or none), then nothing is refused", () => {
  spec().given(...searchedOnce()).when((s) => refuseReusedToolUseIds(s, [use("toolu_b"), use("toolu_c")])).then(null);
  spec().given(...searchedOnce()).when((s) => refuseReusedToolUseIds(s, [{ type: "text", text: "done" }])).then(null);
});

forEachEngine("a reused tool use id, whatever the model", (ctx) => {
  test("is never recorded in a turn: the reply is a failed call, and the executor goes on with new ids", async () => {
    // A model that gives the same id on its first two turns, then a fresh one, then answers.
    const ids = ["toolu_same", "toolu_same", "toolu_new"];
    const model = new ScriptedModel({
      policy: (request) => {
        const id = ids.shift();
        if (!id) return { content: [{ type: "tool_use", name: "answer", input: { sections: [] } }] };
        return { content: [{ type: "tool_use", id, name: "search_corpus", input: { query: `q${turnsTaken(request)}` } }] };
      },
    });
    const runtime = runtimeWith(ctx.store, { main: model, child: model });
    const handle = await runtime.startRun("What does ADIV charge?");
    await handle.result;
    const events = await streamOf(ctx.store, handle.mainExecutorId);
    const used = ofType(events, "turn").flatMap((t) => t.data.response.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
    assert.equal(used.filter((id) => id === "toolu_same").length, 1, `recorded ids: ${used.join(", ")}`);
    const failed = ofType(events, "turn_failed");
    assert.deepEqual(failed.map((f) => f.data.kind), ["reused_tool_use_id"]);
    assert.ok(used.includes("toolu_new"), "the executor went on after the refused reply");
  });
});
