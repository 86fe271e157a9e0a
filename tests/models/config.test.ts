import { test } from "node:test";
import assert from "node:assert/strict";
import { AnthropicModel, createModel, DEFAULT_MODELS, resolveModels } from "../../models/index.ts";
import { reply } from "../../models/testing/index.ts";
import { request, withWireServer, within } from "./fixtures.ts";

test("with nothing set, each role gets its default model", () => {
  assert.deepEqual(resolveModels({}), { main: "claude-sonnet-5-5", child: "claude-haiku-5-5", reviewer: "claude-sonnet-5-5", checker: "claude-haiku-5-5" });
  assert.deepEqual(resolveModels({}), { ...DEFAULT_MODELS });
});

test("environment variables choose per role; empty values count as unset", () => {
  const env = { ARIADNE_MODEL_MAIN: "claude-opus-4-1", ARIADNE_MODEL_CHILD: "", ARIADNE_MODEL_REVIEWER: "claude-x", ARIADNE_MODEL_CHECKER: "claude-checks" };
  assert.deepEqual(resolveModels(env), { main: "claude-opus-4-1", child: "claude-haiku-5-5", reviewer: "claude-x", checker: "claude-checks" });
});

test("overrides win over the environment", () => {
  const env = { ARIADNE_MODEL_MAIN: "from-env", ARIADNE_MODEL_CHILD: "child-env" };
  assert.deepEqual(resolveModels(env, { main: "from-override" }), {
    main: "from-override",
    child: "child-env",
    reviewer: "claude-sonnet-5-5",
    checker: "claude-haiku-5-5",
  });
});

test("createModel gives null without an API key, so the caller chooses the fallback", () => {
  assert.equal(createModel({}), null);
  assert.equal(createModel({ ANTHROPIC_API_KEY: "" }), null);
});

test("createModel gives an AnthropicModel on the configured base URL, defaulting to the main role's model", async () => {
  await withWireServer([reply("hello")], async (server) => {
    const model = createModel({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url, ARIADNE_MODEL_MAIN: "claude-main" });

    assert.ok(model instanceof AnthropicModel);
    const response = await within(5_000, model.complete(request({ model: "" })));
    assert.equal(server.requests[0].body?.model, "claude-main");
    assert.equal(server.requests[0].headers.authorization, "Bearer k");
    assert.deepEqual(response.content, [{ type: "text", text: "hello" }]);
  });
});
