import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import { type AnthropicWireServer, type WireRequestBody, reply, startAnthropicWireServer, systemTextOf } from "../../models/testing/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { delegation, handoffInput, ofType, runtimeWith, within } from "./fixtures.ts";

const MODELS = { main: "claude-sonnet-4-5", child: "claude-haiku-4-5" };
const BREAKPOINT = { type: "ephemeral" };
// What a provider with a warm cache reports: most of the input read back, some of it written.
const USAGE = { input_tokens: 30, output_tokens: 20, cache_creation_input_tokens: 400, cache_read_input_tokens: 2_000 };

type Block = { type: string; content?: string; cache_control?: unknown };
type Message = { role: string; content: string | Block[] };

function onWire(body: WireRequestBody) {
  const messages = body.messages as Message[];
  if (systemTextOf(body).startsWith("You are Main")) {
    if (messages.length === 1) return reply([{ type: "tool_use", name: "delegate", input: delegation("What is ADIV's ongoing charge?") }], { usage: USAGE });
    const [shown] = (messages.at(-1)!.content as Block[]).filter((b) => b.type === "tool_result").map((b) => JSON.parse(b.content!) as { handoff: { summary: string } });
    return reply([{ type: "tool_use", name: "answer", input: { summary: "Nothing collected.", sections: [{ heading: "Fees", claims: [{ text: `Not collected: ${shown!.handoff.summary}`, basis: "not_collected", citations: [] }] }] } }], { usage: USAGE });
  }
  return reply([{ type: "tool_use", name: "handoff", input: handoffInput("[web-explorer] Nothing looked up.") }], { usage: USAGE });
}

forEachEngine("prompt caching over the wire", (ctx) => {
  let server: AnthropicWireServer;
  before(async () => {
    server = await startAnthropicWireServer({ handler: onWire });
  });
  after(() => server.close());

  test("every role's request carries breakpoints on its system prompt, last tool and last block; the turns record the cache counts", async () => {
    server.requests.length = 0;
    const model = new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, idleTimeoutMs: 5_000, timeoutMs: 10_000 });
    const runtime = runtimeWith(ctx.store, { main: model, child: model }, { modelNames: MODELS });
    const run = await runtime.startRun("What does ADIV cost me?");
    assert.equal((await within(20_000, run.result)).kind, "answer");

    const bodies = server.requests.map((r) => r.body!);
    assert.ok(bodies.some((b) => systemTextOf(b).startsWith("You are a Child")) && bodies.some((b) => systemTextOf(b).startsWith("You are Main")));
    for (const body of bodies) {
      assert.deepEqual((body.system as Block[]).map((b) => b.cache_control), [BREAKPOINT]);
      const tools = body.tools as Block[];
      assert.deepEqual(tools.map((t) => t.cache_control ?? null), [...tools.slice(1).map(() => null), BREAKPOINT], "only the last tool spec is a breakpoint");
      const last = (body.messages as Message[]).at(-1)!;
      // The first question is a plain string; from the second turn on, the conversation's last block is the breakpoint.
      if (Array.isArray(last.content)) assert.deepEqual(last.content.at(-1)!.cache_control, BREAKPOINT);
    }
    assert.ok(bodies.some((b) => Array.isArray((b.messages as Message[]).at(-1)!.content)), "a later turn marks its conversation prefix");

    const events = await ctx.store.readRun(run.runId);
    const turns = ofType(events, "turn");
    assert.equal(turns.length, bodies.length);
    for (const t of turns) assert.deepEqual(t.data.usage, { inputTokens: 30, outputTokens: 20, cacheCreationInputTokens: 400, cacheReadInputTokens: 2_000 });
  });
});
