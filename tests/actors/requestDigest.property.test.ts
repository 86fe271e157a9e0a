import { test } from "node:test";
import assert from "node:assert/strict";
import { jcsReference } from "../support/jcsReference.ts";
import fc from "fast-check";
import { canonicalRequest } from "../../actors/request/buildRequest.ts";
import type { Message, ModelRequest } from "../../models/types.ts";

const text = fc.string({ maxLength: 30, unit: "grapheme" });
const block = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text }),
  fc.record({ type: fc.constant("tool_use" as const), id: text, name: text, input: fc.jsonValue() }),
);
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: fc.array(block, { maxLength: 3 }) }),
);
const request: fc.Arbitrary<ModelRequest> = fc.record({
  model: text,
  system: text,
  maxTokens: fc.nat(),
  messages: fc.array(message, { maxLength: 6 }),
  tools: fc.array(fc.record({ name: text, description: text, input_schema: fc.dictionary(text, fc.jsonValue()) }), { maxLength: 3 }),
});

test("property: the assembled canonical request is byte for byte RFC 8785 of the whole request", () => {
  fc.assert(
    fc.property(request, (r) => {
      assert.equal(canonicalRequest(r), jcsReference(r));
      // Again, now from the cache: still equal.
      assert.equal(canonicalRequest(r), jcsReference(r));
    }),
    { numRuns: 300 },
  );
});
