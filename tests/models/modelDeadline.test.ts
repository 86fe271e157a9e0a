import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../../core/errors.ts";
import { AnthropicModel, createModel, DEFAULT_IDLE_TIMEOUT_MS, ModelCallError, ScriptedModel } from "../../models/index.ts";
import { overloaded, rateLimited, reply, stall, times } from "../../models/testing/index.ts";
import { modelAt, rejection, request, withWireServer, within } from "./fixtures.ts";

async function callError(promise: Promise<unknown>, ms = 5_000): Promise<ModelCallError> {
  const e = await within(ms, rejection(promise));
  assert.ok(e instanceof ModelCallError, `expected ModelCallError, got ${String(e)}`);
  return e;
}

const env = (url: string, extra: Record<string, string> = {}) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url, ...extra });

test("the idle timeout defaults to 60 s: two or more of the API's 15-30 s keep-alive pings missed", () => {
  assert.equal(DEFAULT_IDLE_TIMEOUT_MS, 60_000);
  assert.equal(createModel(env("http://127.0.0.1:9"))!.idleTimeoutMs, 60_000);
});

test("ARIADNE_MODEL_IDLE_TIMEOUT_MS sets the idle timeout, and a stalled stream fails after it", async () => {
  await withWireServer([stall(3)], async (server) => {
    const model = createModel(env(server.url, { ARIADNE_MODEL_IDLE_TIMEOUT_MS: "150" }))!;
    assert.equal(model.idleTimeoutMs, 150);
    const e = await callError(model.complete(request()), 3_000);
    assert.equal(e.kind, "stream_cut");
    assert.match(e.message, /stalled/);
  });
});

test("the option (the CLI's --model-idle-timeout) wins over the environment", () => {
  const model = createModel(env("http://127.0.0.1:9", { ARIADNE_MODEL_IDLE_TIMEOUT_MS: "150" }), { idleTimeoutMs: 7_000 })!;
  assert.equal(model.idleTimeoutMs, 7_000);
});

test("a malformed ARIADNE_MODEL_IDLE_TIMEOUT_MS is refused, naming the variable and the value", () => {
  for (const bad of ["abc", "0", "-5", "1.5"]) {
    assert.throws(
      () => createModel(env("http://127.0.0.1:9", { ARIADNE_MODEL_IDLE_TIMEOUT_MS: bad })),
      (e: unknown) => e instanceof ConfigError && e.message.includes("ARIADNE_MODEL_IDLE_TIMEOUT_MS") && e.message.includes(`"${bad}"`),
    );
  }
  assert.throws(() => new AnthropicModel({ apiKey: "k", idleTimeoutMs: 0 }), ConfigError);
});

test("a deadline stops a stalled stream at the deadline, long before the idle timeout", async () => {
  await withWireServer([stall(3)], async (server) => {
    const model = modelAt(server.url, { idleTimeoutMs: 60_000 });
    // 1.5 s: long enough for the request to reach the server on a loaded machine, far below the 60 s idle timeout.
    const e = await callError(model.complete(request(), { deadline: Date.now() + 1_500 }), 10_000);
    assert.equal(e.kind, "deadline");
    assert.equal(e.retryable, false);
    assert.equal(e.attempts, 1);
    assert.equal(server.requests.length, 1);
  });
});

test("a retry wait that would end past the deadline is not begun: the call fails at once with the last error as cause", async () => {
  await withWireServer([rateLimited(30), reply("too late")], async (server) => {
    const model = modelAt(server.url, { maxRetryDelayMs: 60_000 });
    const e = await callError(model.complete(request(), { deadline: Date.now() + 2_000 }), 1_500);
    assert.equal(e.kind, "deadline");
    assert.equal(e.attempts, 1);
    assert.ok(e.cause instanceof ModelCallError && e.cause.kind === "rate_limited");
    assert.equal(server.requests.length, 1);
  });
});

test("retries within the deadline go on as usual", async () => {
  await withWireServer([...times(2, overloaded()), reply("in time")], async (server) => {
    const response = await within(5_000, modelAt(server.url).complete(request(), { deadline: Date.now() + 4_000 }));
    assert.deepEqual(response.content, [{ type: "text", text: "in time" }]);
    assert.equal(server.requests.length, 3);
  });
});

test("a deadline already past sends nothing; the caller's own abort stays an abort", async () => {
  await withWireServer([stall(3)], async (server) => {
    const model = modelAt(server.url, { idleTimeoutMs: 60_000 });
    assert.equal((await callError(model.complete(request(), { deadline: Date.now() - 1 }))).kind, "deadline");
    assert.equal(server.requests.length, 0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const e = await callError(model.complete(request(), { signal: controller.signal, deadline: Date.now() + 60_000 }), 2_000);
    assert.equal(e.kind, "aborted");
  });
});

test("ScriptedModel keeps a deadline too: a reply slower than it never arrives", async () => {
  const model = new ScriptedModel({ script: ["slow"], latencyMs: 10_000 });
  const e = await callError(model.complete(request(), { deadline: Date.now() + 50 }), 2_000);
  assert.equal(e.kind, "deadline");
});
