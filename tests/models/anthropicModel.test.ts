import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../../core/errors.ts";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import { ModelCallError } from "../../models/modelCallError.ts";
import {
  cutStream,
  errorEvent,
  httpError,
  noMessageStop,
  overloaded,
  rateLimited,
  reply,
  stall,
  times,
} from "../../models/testing/wireBehaviours.ts";
import { modelAt, rejection, request, withWireServer, within } from "./fixtures.ts";

/** The ModelCallError `promise` rejects with, within `ms`. */
async function callError(promise: Promise<unknown>, ms = 5_000): Promise<ModelCallError> {
  const e = await within(ms, rejection(promise));
  assert.ok(e instanceof ModelCallError, `expected ModelCallError, got ${String(e)}`);
  return e;
}

test("a streamed text reply becomes text content, end_turn, usage and the model the server reported", async () => {
  await withWireServer(
    [reply("Paris is the capital of France.", { usage: { input_tokens: 21, output_tokens: 8 }, model: "claude-test-1-20260101" })],
    async (server) => {
      const response = await within(5_000, modelAt(server.url).complete(request()));

      assert.deepEqual(response, {
        content: [{ type: "text", text: "Paris is the capital of France." }],
        stopReason: "end_turn",
        usage: { inputTokens: 21, outputTokens: 8, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
        model: "claude-test-1-20260101",
        responseId: "msg_wire_1",
        scripted: false,
      });
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0].body?.stream, true);
    },
  );
});

test("tool input streamed as several input_json_delta chunks is assembled into the original object", async () => {
  const input = { query: "Ariadne thread — «labyrinth» 🧵", filters: { year: [2024, 2025], exact: true }, limit: 10 };
  await withWireServer(
    [reply([{ type: "text", text: "Let me search." }, { type: "tool_use", id: "toolu_01", name: "search", input }], { chunks: 9 })],
    async (server) => {
      const response = await within(5_000, modelAt(server.url).complete(request()));

      assert.deepEqual(response.content, [
        { type: "text", text: "Let me search." },
        { type: "tool_use", id: "toolu_01", name: "search", input },
      ]);
      assert.equal(response.stopReason, "tool_use");
    },
  );
});

test("529 overloaded twice, then a reply: the caller gets the reply after three requests", async () => {
  await withWireServer([overloaded(), overloaded(), reply("finally")], async (server) => {
    const response = await within(5_000, modelAt(server.url).complete(request()));

    assert.deepEqual(response.content, [{ type: "text", text: "finally" }]);
    assert.equal(server.requests.length, 3);
  });
});

test("529 on every request fails with kind overloaded after the bounded retries, quickly", async () => {
  await withWireServer(times(10, overloaded()), async (server) => {
    // Within 3 s: the configured backoff (1-20 ms) leaves a loaded machine room; the SDK's own (0.5 + 1 + 2 s) would not fit.
    const e = await callError(modelAt(server.url, { maxRetries: 3 }).complete(request()), 3_000);

    assert.equal(e.kind, "overloaded");
    assert.equal(e.retryable, true);
    assert.equal(e.code, "MODEL_CALL");
    assert.equal(e.providerStatus, 529);
    assert.equal(e.requestId, "req_wire_4");
    assert.equal(e.attempts, 4);
    assert.equal(server.requests.length, 4);
  });
});

test("429 with retry-after waits as long as the server asked, then succeeds", async () => {
  await withWireServer([rateLimited(0.15), reply("after the wait")], async (server) => {
    const started = Date.now();
    const response = await within(5_000, modelAt(server.url, { maxRetryDelayMs: 1_000 }).complete(request()));

    assert.deepEqual(response.content, [{ type: "text", text: "after the wait" }]);
    assert.equal(server.requests.length, 2);
    assert.ok(Date.now() - started >= 140, `retried after ${Date.now() - started} ms, before retry-after`);
  });
});

test("429 on every request fails with kind rate_limited and the retry-after it was given", async () => {
  await withWireServer(times(10, rateLimited(0.001)), async (server) => {
    const e = await callError(modelAt(server.url, { maxRetries: 2 }).complete(request()));

    assert.equal(e.kind, "rate_limited");
    assert.equal(e.retryable, true);
    assert.equal(e.retryAfterMs, 1);
    assert.equal(server.requests.length, 3);
  });
});

test("a 429 for a spent budget is not retryable and is not retried", async () => {
  const spent = httpError(429, "rate_limit_error", "Spend limit reached", {
    details: { error_code: "enforced_spend_limit_reached" },
  });
  await withWireServer([spent, reply("must not be reached")], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "rate_limited");
    assert.equal(e.retryable, false);
    assert.equal(server.requests.length, 1);
  });
});

test("x-should-retry: false from the server stops the retries of a 529", async () => {
  const final = httpError(529, "overloaded_error", "Overloaded", { headers: { "x-should-retry": "false" } });
  await withWireServer([final, reply("must not be reached")], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "overloaded");
    assert.equal(e.retryable, false);
    assert.equal(server.requests.length, 1);
  });
});

test("a stream cut mid-message fails with kind stream_cut at once, without a retry", async () => {
  await withWireServer([cutStream(4), reply("must not be reached")], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "stream_cut");
    assert.equal(e.retryable, true);
    assert.match(e.message, /broke mid-message/);
    assert.equal(server.requests.length, 1);
  });
});

test("a stream that ends without message_stop fails with kind incomplete_stream", async () => {
  await withWireServer([noMessageStop()], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "incomplete_stream");
    assert.match(e.message, /without message_stop/);
    assert.equal(server.requests.length, 1);
  });
});

test("a stream that goes silent fails with kind stream_cut after the idle timeout, not a hang", async () => {
  await withWireServer([stall(3)], async (server) => {
    const started = Date.now();
    const e = await callError(modelAt(server.url, { idleTimeoutMs: 150 }).complete(request()), 3_000);

    assert.equal(e.kind, "stream_cut");
    assert.match(e.message, /stalled/);
    assert.ok(Date.now() - started >= 140);
  });
});

test("an `event: error` overloaded_error inside the stream is retried like a 529", async () => {
  await withWireServer([errorEvent("overloaded_error", "Overloaded", 2), reply("second try")], async (server) => {
    const response = await within(5_000, modelAt(server.url).complete(request()));

    assert.deepEqual(response.content, [{ type: "text", text: "second try" }]);
    assert.equal(server.requests.length, 2);
  });
});

test("an `event: error` overloaded_error on every try fails with kind overloaded and no HTTP status", async () => {
  await withWireServer(times(10, errorEvent()), async (server) => {
    const e = await callError(modelAt(server.url, { maxRetries: 1 }).complete(request()));

    assert.equal(e.kind, "overloaded");
    assert.equal(e.providerStatus, undefined);
    assert.match(e.message, /stream error event/);
    assert.equal(server.requests.length, 2);
  });
});

test("an `event: error` of a non-transient type fails with kind api_error and is not retried", async () => {
  await withWireServer([errorEvent("invalid_request_error", "prompt is too long", 3)], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "api_error");
    assert.equal(e.retryable, false);
    assert.match(e.message, /prompt is too long/);
    assert.equal(server.requests.length, 1);
  });
});

test("a 400 is an api_error, not retryable and not retried", async () => {
  await withWireServer([httpError(400, "invalid_request_error", "max_tokens: too large")], async (server) => {
    const e = await callError(modelAt(server.url).complete(request()));

    assert.equal(e.kind, "api_error");
    assert.equal(e.retryable, false);
    assert.equal(e.providerStatus, 400);
    assert.equal(server.requests.length, 1);
  });
});

test("a 500 is retried, then the reply comes through", async () => {
  await withWireServer([httpError(500, "api_error", "Internal server error"), reply("ok")], async (server) => {
    const response = await within(5_000, modelAt(server.url).complete(request()));
    assert.deepEqual(response.content, [{ type: "text", text: "ok" }]);
    assert.equal(server.requests.length, 2);
  });
});

test("aborting mid-stream fails promptly with kind aborted", async () => {
  await withWireServer([stall(3)], async (server) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const e = await callError(modelAt(server.url, { idleTimeoutMs: 60_000 }).complete(request(), { signal: controller.signal }), 2_000);

    assert.equal(e.kind, "aborted");
    assert.equal(e.retryable, false);
  });
});

test("aborting during a backoff wait fails with kind aborted and sends no further request", async () => {
  await withWireServer(times(10, overloaded()), async (server) => {
    const controller = new AbortController();
    const model = modelAt(server.url, { initialRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    const call = model.complete(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const e = await callError(call, 2_000);

    assert.equal(e.kind, "aborted");
    assert.equal(e.attempts, 1);
    assert.equal(server.requests.length, 1);
  });
});

test("the prompt cache counts the server reports are kept apart from the other input tokens", async () => {
  const usage = { input_tokens: 40, output_tokens: 9, cache_creation_input_tokens: 1_500, cache_read_input_tokens: 3_200 };
  await withWireServer([reply("Cached.", { usage })], async (server) => {
    const response = await within(5_000, modelAt(server.url).complete(request({})));
    assert.deepEqual(response.usage, { inputTokens: 40, outputTokens: 9, cacheCreationInputTokens: 1_500, cacheReadInputTokens: 3_200 });
  });
});

test("the request body carries model, max_tokens, system, tools and every message block as the API expects, with three prompt cache breakpoints", async () => {
  const tools = [
    {
      name: "search",
      description: "Search the web.",
      input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  ];
  const messages = [
    { role: "user" as const, content: "Find the population of Lyon." },
    {
      role: "assistant" as const,
      content: [
        { type: "text" as const, text: "Searching." },
        { type: "tool_use" as const, id: "toolu_a", name: "search", input: { query: "Lyon population" } },
      ],
    },
    {
      role: "user" as const,
      content: [
        { type: "tool_result" as const, tool_use_id: "toolu_a", content: "522,250 (2021)" },
        { type: "tool_result" as const, tool_use_id: "toolu_b", content: "timeout", is_error: true },
        { type: "text" as const, text: "Summarise.", extra: "not for the wire" } as { type: "text"; text: string },
      ],
    },
  ];
  await withWireServer([reply("About 522,000.")], async (server) => {
    await within(5_000, modelAt(server.url).complete(request({ model: "claude-x", system: "Be brief.", tools, messages, maxTokens: 1234 })));

    const sent = server.requests[0];
    assert.equal(sent.method, "POST");
    assert.equal(sent.path, "/v1/messages");
    // This SDK version sends the key as a bearer token.
    assert.equal(sent.headers.authorization, "Bearer test-key");
    assert.ok(sent.headers["anthropic-version"], "anthropic-version header is sent");
    const breakpoint = { type: "ephemeral" };
    assert.deepEqual(sent.body, {
      model: "claude-x",
      max_tokens: 1234,
      // Breakpoints: the system prompt, the last tool spec, and the conversation's last block.
      system: [{ type: "text", text: "Be brief.", cache_control: breakpoint }],
      tools: [{ ...tools[0], cache_control: breakpoint }],
      stream: true,
      messages: [
        messages[0],
        messages[1],
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "522,250 (2021)" },
            { type: "tool_result", tool_use_id: "toolu_b", content: "timeout", is_error: true },
            { type: "text", text: "Summarise.", cache_control: breakpoint },
          ],
        },
      ],
    });
  });
});

test("an empty system prompt and tool list are left out of the body", async () => {
  await withWireServer([reply("hi")], async (server) => {
    await within(5_000, modelAt(server.url).complete(request({ system: "", tools: [] })));

    const body = server.requests[0].body ?? {};
    assert.equal("system" in body, false);
    assert.equal("tools" in body, false);
  });
});

test("a request that names no model uses defaultModel", async () => {
  await withWireServer([reply("hi")], async (server) => {
    const response = await within(5_000, modelAt(server.url, { defaultModel: "claude-default" }).complete(request({ model: "" })));

    assert.equal(server.requests[0].body?.model, "claude-default");
    assert.equal(response.model, "claude-default");
  });
});

test("without an API key the model refuses to construct, saying what to set", () => {
  assert.throws(() => new AnthropicModel({ apiKey: "" }), (e) => e instanceof ConfigError && /ANTHROPIC_API_KEY/.test(e.message));
});
