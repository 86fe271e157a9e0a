import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_MODELS } from "../../models/index.ts";
import { reply } from "../../models/testing/index.ts";
import { modelAt, request, withWireServer, within } from "./fixtures.ts";

/**
 * The SDK's own deprecation list, from the installed package. It is not in the
 * package's exports map, so it is imported by file from the package root.
 */
async function sdkDeprecatedModels(): Promise<Record<string, string>> {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/sdk");
  const file = join(dirname(entry), "internal", "data", "deprecated-models.mjs");
  const { DEPRECATED_MODELS } = (await import(pathToFileURL(file).href)) as { DEPRECATED_MODELS: Record<string, string> };
  return DEPRECATED_MODELS;
}

test("the installed SDK lists no default model as deprecated", async () => {
  const deprecated = await sdkDeprecatedModels();
  // An empty or missing list would let this test pass whatever the defaults are.
  assert.ok(Object.keys(deprecated).length > 0, "the SDK's DEPRECATED_MODELS list was not found or is empty");
  const listed = Object.entries(DEFAULT_MODELS).filter(([, model]) => model in deprecated);
  assert.deepEqual(
    listed.map(([role, model]) => `${role}: ${model} (end-of-life ${deprecated[model]})`),
    [],
    "a default model is deprecated in the installed SDK: choose a current one in models/config.ts",
  );
});

test("a call with each default model prints no SDK warning", async () => {
  const warnings: unknown[][] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args);
  try {
    const models = [...new Set(Object.values(DEFAULT_MODELS))];
    await withWireServer(models.map(() => reply("ok")), async (server) => {
      const model = modelAt(server.url);
      for (const name of models) await within(5_000, model.complete(request({ model: name })));
      assert.deepEqual(server.requests.map((r) => r.body?.model), models);
    });
  } finally {
    console.warn = original;
  }
  assert.deepEqual(warnings, []);
});
