import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import { type AnthropicWireServer, type WireRequestBody, reply, scriptedSearchResult, startAnthropicWireServer, systemTextOf } from "../../models/testing/index.ts";
import type { Model, ServerWebSearch } from "../../models/types.ts";
import { ToolRegistry, anthropicSearchOf, createWebTools } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { ScriptedModel } from "../../models/index.ts";
import { childrenOf, delegatingMain, delegation, gate, handoffInput, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

type Message = { role: string; content: string | { type: string }[] };
const QUESTION = "What is ADIV's ongoing charge?";
const isChild = (body: WireRequestBody) => systemTextOf(body).startsWith("You are a Child");
const continuing = (body: WireRequestBody) => (body.messages as Message[]).at(-1)!.role === "assistant";

/**
 * A Child's server-side search that Anthropic paused (pause_turn), then the
 * process hosting it stops during the next call, and another runtime resumes
 * the run: the search blocks are in the log, so the resumed Child continues the
 * paused turn with the same history and the search is not run again.
 */
forEachEngine("a server-side search across a crash", (ctx) => {
  let wire: AnthropicWireServer;
  before(async () => {
    wire = await startAnthropicWireServer({
      handler: (body) => {
        if (!isChild(body)) throw new Error("Main is scripted in this test");
        if (!continuing(body)) {
          return reply(
            [
              { type: "server_tool_use", id: "srvtoolu_r1", name: "web_search", input: { query: "ADIV ongoing charge" } },
              { type: "web_search_tool_result", tool_use_id: "srvtoolu_r1", content: [scriptedSearchResult("https://www.example.com/adiv", "ADIV factsheet")] },
              { type: "text", text: "Searching further." },
            ],
            { stopReason: "pause_turn" },
          );
        }
        return reply([{ type: "tool_use", name: "handoff", input: handoffInput("[web-explorer] searched; nothing fetched") }]);
      },
    });
  });
  after(() => wire.close());

  test("the paused turn goes back as it is, no nudge; after the crash the resumed request is the one sent before, and the search is not run again", async () => {
    wire.requests.length = 0;
    const { tool } = anthropicSearchOf({}) as { tool: ServerWebSearch };
    const searching = () => new AnthropicModel({ apiKey: "test", baseURL: wire.url, maxRetries: 0, idleTimeoutMs: 5_000, timeoutMs: 10_000, webSearch: tool });
    const tools = () => new ToolRegistry().register(...createWebTools());
    const main = () => new ScriptedModel({ name: "main", policy: delegatingMain([delegation(QUESTION, "web-explorer", { tools: ["web_search"] })]) });

    // The first process: the continuation is sent, and the process stops before its reply is recorded.
    const sent = gate();
    const real = searching();
    const dying: Model = {
      provider: real.provider,
      scripted: false,
      serverSearchesPerCall: real.serverSearchesPerCall,
      complete(request, options) {
        if (request.messages.at(-1)!.role !== "assistant") return real.complete(request, options);
        void real.complete(request).then(sent.open, sent.open);
        return new Promise(() => {});
      },
    };
    const first = runtimeWith(ctx.store, { main: main(), child: dying }, { tools: tools() });
    const crashed = await first.startRun("What does ADIV cost?");
    await within(10_000, sent.opened);

    const resumed = await runtimeWith(ctx.store, { main: main(), child: searching() }, { tools: tools() }).resumeRun(crashed.runId);
    assert.equal((await within(10_000, resumed.result)).kind, "answer");

    const bodies = wire.requests.map((r) => r.body!).filter(isChild);
    assert.equal(bodies.filter((b) => !continuing(b)).length, 1, "the search turn was asked once");
    const [before, after] = bodies.filter(continuing);
    assert.ok(before && after, "a continuation before the crash and one after it");
    assert.deepEqual(after.messages, before.messages, "the resumed Child sends the same history");
    const last = (after.messages as Message[]).at(-1)!;
    assert.deepEqual((last.content as { type: string }[]).map((b) => b.type), ["server_tool_use", "web_search_tool_result", "text"], "the paused turn, with no nudge after it");

    const [childId] = childrenOf(await ctx.store.readRun(crashed.runId), crashed.mainExecutorId);
    const turns = ofType(await streamOf(ctx.store, childId!), "turn");
    assert.deepEqual(turns.map((t) => [t.data.response.stopReason, t.data.searches?.length ?? 0]), [["pause_turn", 1], ["tool_use", 0]]);
  });
});
