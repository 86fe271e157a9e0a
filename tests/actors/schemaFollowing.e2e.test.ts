import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DelegateInput } from "../../actors/request/delegation.ts";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import {
  type AnthropicWireServer,
  type JsonSchema,
  type WireRequestBody,
  followSchema,
  reply,
  startAnthropicWireServer,
  systemTextOf,
} from "../../models/testing/index.ts";
import { listProfiles } from "../../profiles/index.ts";
import { inputJsonSchema } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

type Tool = { name: string; input_schema: JsonSchema };
type Message = { role: string; content: string | { type: string; name?: string }[] };

const used = (body: WireRequestBody, name: string) =>
  (body.messages as Message[]).some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use" && b.name === name));

/**
 * A model that knows which tool to call next but writes every input from the
 * JSON Schema it was sent and nothing else: Main delegates once, then answers;
 * a Child hands off at once.
 */
function schemaFollower(body: WireRequestBody) {
  const tools = body.tools as Tool[];
  const main = systemTextOf(body).startsWith("You are Main");
  const name = !main ? "handoff" : used(body, "delegate") ? "answer" : "delegate";
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`the request offers no ${name} tool`);
  return reply([{ type: "tool_use", name, input: followSchema(tool.input_schema, { arrayItems: 1 }) }]);
}

forEachEngine("a model that follows only the tool schemas completes a delegation", (ctx) => {
  let server: AnthropicWireServer;
  before(async () => {
    server = await startAnthropicWireServer({ handler: schemaFollower });
  });
  after(() => server.close());

  test("the Child is admitted with an installed profile, its handoff is consumed, and the answer cites it", { timeout: 30_000 }, async () => {
    const model = () => new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, idleTimeoutMs: 5_000 });
    const runtime = runtimeWith(ctx.store, { main: model(), child: model() });
    const run = await runtime.startRun("What does ADIV cost?");
    const answer = answerOf(await within(20_000, run.result));

    const events = await ctx.store.readRun(run.runId);
    const [childId] = childrenOf(events, run.mainExecutorId);
    assert.ok(childId, "no Child was admitted");
    const [admitted] = ofType(await streamOf(ctx.store, childId), "executor_admitted");
    const installed = (await listProfiles()).map((p) => p.id);
    assert.ok(installed.includes(admitted.data.profile!.id));
    const main = await streamOf(ctx.store, run.mainExecutorId);
    assert.deepEqual(ofType(main, "tool_failed"), [], "nothing the model sent was refused");
    const [consumed] = ofType(main, "handoff_consumed");
    assert.equal(consumed.data.childExecutorId, childId);
    const [committed] = ofType(await streamOf(ctx.store, childId), "handoff_committed");
    assert.equal(committed.data.forced, false);
    assert.deepEqual(answer.sections[0].claims[0].citations, [{ executor: childId, finding: 0 }]);
  });

  test("with the delegate schema as it was (profile a free string), the same model invents a profile and is refused", async () => {
    const runtime = runtimeWith(ctx.store, { main: new AnthropicModel({ apiKey: "test", baseURL: server.url }), child: new AnthropicModel({ apiKey: "test", baseURL: server.url }) });
    const invented = DelegateInput.parse(followSchema(inputJsonSchema(DelegateInput) as JsonSchema, { arrayItems: 1 }));
    assert.match((await runtime.checkDelegation(invented)) ?? "", /Unknown profile "profile-value"/);
  });
});
