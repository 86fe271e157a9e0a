import assert from "node:assert/strict";
import { test } from "node:test";
import { NotFoundError } from "../../core/errors.ts";
import { createCorpusTools, ToolDefinitionError, ToolRegistry } from "../../tools/index.ts";

test("specsFor returns JSON Schema inputs derived from the zod schemas, in the order asked", () => {
  const registry = new ToolRegistry().register(...createCorpusTools());
  const specs = registry.specsFor(["quote_passage", "search_corpus"]);
  assert.deepEqual(specs.map((s) => s.name), ["quote_passage", "search_corpus"]);
  const [quote, search] = specs;
  assert.equal(quote?.input_schema.type, "object");
  assert.deepEqual(quote?.input_schema.required, ["doc_id", "contains"]);
  assert.equal(quote?.input_schema.$schema, undefined);
  assert.deepEqual(search?.input_schema.required, ["query"], "optional inputs are not required of the model");
});

test("the catalog reports every corpus tool as read-only", () => {
  const registry = new ToolRegistry().register(...createCorpusTools());
  assert.deepEqual(registry.catalog(), {
    search_corpus: "read_only",
    read_document: "read_only",
    quote_passage: "read_only",
    compute_overlap: "read_only",
  });
});

test("duplicates and unknown names are wiring errors", () => {
  const registry = new ToolRegistry().register(...createCorpusTools());
  assert.throws(() => registry.register(...createCorpusTools()), ToolDefinitionError);
  assert.throws(() => registry.specsFor(["delegate"]), NotFoundError);
  assert.equal(registry.get("delegate"), undefined);
});
