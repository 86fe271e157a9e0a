import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../../core/errors.ts";
import { estimateUsage } from "../../models/estimateUsage.ts";
import { ModelCallError } from "../../models/modelCallError.ts";
import { ScriptedModel, ScriptExhaustedError, type ScriptedModelOptions } from "../../models/scriptedModel.ts";
import { scriptedToolUseId } from "../../models/scriptedToolUseId.ts";
import type { ModelRequest } from "../../models/types.ts";
import { rejection, request, within } from "./fixtures.ts";

test("a script is replayed in order, every response labelled scripted, tool ids derived from the request (its block index)", async () => {
  const model = new ScriptedModel({
    name: "planner",
    script: [
      { content: [{ type: "text", text: "Plan." }, { type: "tool_use", name: "search", input: { q: "a" } }] },
      { content: [{ type: "tool_use", name: "search", input: { q: "b" } }, { type: "tool_use", name: "fetch", input: {} }] },
      "Done.",
    ],
    usage: { inputTokens: 10, outputTokens: 5 },
  });

  const responses = [await model.complete(request()), await model.complete(request()), await model.complete(request())];

  assert.equal(model.provider, "scripted");
  assert.equal(model.scripted, true);
  assert.deepEqual(responses, [
    {
      content: [{ type: "text", text: "Plan." }, { type: "tool_use", id: scriptedToolUseId(request(), 1), name: "search", input: { q: "a" } }],
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 5 },
      model: "scripted:planner",
      scripted: true,
    },
    {
      content: [
        { type: "tool_use", id: scriptedToolUseId(request(), 0), name: "search", input: { q: "b" } },
        { type: "tool_use", id: scriptedToolUseId(request(), 1), name: "fetch", input: {} },
      ],
      stopReason: "tool_use",
      usage: { inputTokens: 10, outputTokens: 5 },
      model: "scripted:planner",
      scripted: true,
    },
    {
      content: [{ type: "text", text: "Done." }],
      stopReason: "end_turn",
      usage: { inputTokens: 10, outputTokens: 5 },
      model: "scripted:planner",
      scripted: true,
    },
  ]);
});

test("two models with the same script give identical responses", async () => {
  const options: ScriptedModelOptions = {
    script: [{ content: [{ type: "tool_use", name: "t", input: { n: 1 } }] }, "end"],
  };
  const run = async (model: ScriptedModel) => [await model.complete(request()), await model.complete(request())];

  assert.deepEqual(await run(new ScriptedModel(options)), await run(new ScriptedModel(options)));
});

test("without a name the label is scripted:<requested model>, and explicit ids and stop reasons are kept", async () => {
  const model = new ScriptedModel({
    script: [{ content: [{ type: "tool_use", id: "toolu_fixed", name: "t", input: 1 }], stopReason: "max_tokens" }],
  });

  const response = await model.complete(request({ model: "claude-haiku-4-5" }));

  assert.equal(response.model, "scripted:claude-haiku-4-5");
  assert.equal(response.stopReason, "max_tokens");
  assert.deepEqual(response.content, [{ type: "tool_use", id: "toolu_fixed", name: "t", input: 1 }]);
});

test("running out of script is a ScriptExhaustedError that says how many replies there were", async () => {
  const model = new ScriptedModel({ name: "short", script: ["only one"] });
  await model.complete(request());

  const e = await rejection(model.complete(request()));

  assert.ok(e instanceof ScriptExhaustedError);
  assert.equal(e.code, "SCRIPT_EXHAUSTED");
  assert.match(e.message, /scripted:short got call #2 but its script has only 1 replies/);
});

test("a policy is called with each request and the call index", async () => {
  const seen: [string, number][] = [];
  const model = new ScriptedModel({
    policy: (req: ModelRequest, callIndex: number) => {
      const last = req.messages.at(-1);
      seen.push([typeof last?.content === "string" ? last.content : "blocks", callIndex]);
      return callIndex === 0
        ? { content: [{ type: "tool_use", name: "lookup", input: { term: "x" } }] }
        : `answer ${callIndex}`;
    },
  });

  const first = await model.complete(request({ messages: [{ role: "user", content: "first" }] }));
  const second = await model.complete(request({ messages: [{ role: "user", content: "second" }] }));

  assert.deepEqual(seen, [["first", 0], ["second", 1]]);
  assert.equal(first.stopReason, "tool_use");
  assert.deepEqual(second.content, [{ type: "text", text: "answer 1" }]);
  assert.equal(model.requests.length, 2);
});

test("a failure can be scripted: an Error step or a throwing policy reaches the caller as is", async () => {
  const overloaded = new ModelCallError({ kind: "overloaded", retryable: true, message: "scripted overload" });
  const scripted = new ScriptedModel({ script: [overloaded, "recovered"] });
  assert.equal(await rejection(scripted.complete(request())), overloaded);
  assert.deepEqual((await scripted.complete(request())).content, [{ type: "text", text: "recovered" }]);

  const policy = new ScriptedModel({
    policy: (_req, i) => {
      if (i === 0) throw overloaded;
      return "recovered";
    },
  });
  assert.equal(await rejection(policy.complete(request())), overloaded);
  assert.deepEqual((await policy.complete(request())).content, [{ type: "text", text: "recovered" }]);
});

test("latency delays each reply by the configured time", async () => {
  const model = new ScriptedModel({ script: ["slow"], latencyMs: 60 });
  const started = Date.now();

  await model.complete(request());

  assert.ok(Date.now() - started >= 55, `replied after ${Date.now() - started} ms`);
});

test("zero latency replies without waiting for any timer", async () => {
  const model = new ScriptedModel({ script: ["fast"] });
  const order: string[] = [];
  setTimeout(() => order.push("timer"), 0);

  await model.complete(request());
  order.push("reply");

  assert.deepEqual(order, ["reply"]);
});

test("an abort during latency rejects promptly with kind aborted and leaves the script where it was", async () => {
  // An abort that only took effect once the latency was over would have taken a reply: the next call would get "second".
  const model = new ScriptedModel({ script: ["first", "second"], latencyMs: 400 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);

  const e = await within(5_000, rejection(model.complete(request(), { signal: controller.signal })));

  assert.ok(e instanceof ModelCallError && e.kind === "aborted" && !e.retryable);
  assert.deepEqual((await model.complete(request())).content, [{ type: "text", text: "first" }]);
});

test("an already aborted signal rejects at once without consuming a reply", async () => {
  const model = new ScriptedModel({ script: ["first"] });

  const e = await rejection(model.complete(request(), { signal: AbortSignal.abort() }));

  assert.ok(e instanceof ModelCallError && e.kind === "aborted");
  assert.deepEqual((await model.complete(request())).content, [{ type: "text", text: "first" }]);
});

test("usage is a fixed pair, a function of the request, or by default a four-characters-a-token estimate", async () => {
  const fixed = new ScriptedModel({ script: ["x"], usage: { inputTokens: 3, outputTokens: 4 } });
  assert.deepEqual((await fixed.complete(request())).usage, { inputTokens: 3, outputTokens: 4 });

  const computed = new ScriptedModel({
    script: ["x"],
    usage: (req, content) => ({ inputTokens: req.maxTokens, outputTokens: content.length }),
  });
  assert.deepEqual((await computed.complete(request({ maxTokens: 99 }))).usage, { inputTokens: 99, outputTokens: 1 });

  const estimated = new ScriptedModel({ script: ["a reply of some length"] });
  const req = request();
  const response = await estimated.complete(req);
  assert.deepEqual(response.usage, estimateUsage(req, response.content));
  const chars = req.system.length + JSON.stringify(req.messages).length + JSON.stringify(req.tools).length;
  assert.equal(response.usage.inputTokens, Math.ceil(chars / 4));

  const perReply = new ScriptedModel({ script: [{ content: [], usage: { inputTokens: 1, outputTokens: 0 } }], usage: { inputTokens: 9, outputTokens: 9 } });
  assert.deepEqual((await perReply.complete(request())).usage, { inputTokens: 1, outputTokens: 0 });
});

test("editing a response does not edit the script", async () => {
  const input = { nested: { value: 1 } };
  const model = new ScriptedModel({ policy: () => ({ content: [{ type: "tool_use", name: "t", input }] }) });

  const first = await model.complete(request());
  (first.content[0] as { input: { nested: { value: number } } }).input.nested.value = 2;
  const second = await model.complete(request());

  assert.deepEqual(second.content[0], { type: "tool_use", id: scriptedToolUseId(request(), 0), name: "t", input: { nested: { value: 1 } } });
});

test("a ScriptedModel needs exactly one of script and policy", () => {
  assert.throws(() => new ScriptedModel({} as ScriptedModelOptions), ConfigError);
  assert.throws(() => new ScriptedModel({ script: [], policy: () => "x" } as unknown as ScriptedModelOptions), ConfigError);
});

test("a scripted reply is cleaned of what the event log cannot hold, and says so", async () => {
  const model = new ScriptedModel({ script: [{ content: [{ type: "text", text: "a\u0000b" }] }] });
  const response = await model.complete(request());
  assert.deepEqual(response.content, [{ type: "text", text: "a\uFFFDb" }]);
  assert.deepEqual(response.sanitized, ["U+0000 x1 in content[0].text"]);
});

test("requests are kept for the test to read, unless keepRequests is false (a bench hosting thousands of turns)", async () => {
  const kept = new ScriptedModel({ script: ["one", "two"] });
  const unkept = new ScriptedModel({ script: ["one", "two"], keepRequests: false });
  for (const model of [kept, unkept]) {
    await model.complete(request());
    await model.complete(request());
  }
  assert.equal(kept.requests.length, 2);
  assert.equal(unkept.requests.length, 0);
});
