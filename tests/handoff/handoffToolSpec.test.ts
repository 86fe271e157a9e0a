import assert from "node:assert/strict";
import { test } from "node:test";
import { extractCitationMarkers, handoffToolSpec, isCitationMarker } from "../../handoff/index.ts";

test("the handoff tool schema is derived from the zod schema", () => {
  const schema = handoffToolSpec.input_schema as {
    type: string;
    required: string[];
    properties: Record<string, { maxLength?: number; items?: unknown }>;
  };
  assert.equal(handoffToolSpec.name, "handoff");
  assert.equal(schema.type, "object");
  assert.deepEqual(
    [...schema.required].sort(),
    ["artifacts", "caveats", "confidence", "executionState", "findings", "gaps", "measurementBasis", "summary"],
  );
  assert.equal(schema.properties.summary?.maxLength, 1200);
  assert.match(JSON.stringify(schema.properties.findings), /tool_use ids/);
  assert.match(handoffToolSpec.description, /two kinds of reference/);
});

test("citation markers are recognised and extracted from tool output", () => {
  assert.ok(isCitationMarker("[[corpus:adiv-prospectus#p12]]"));
  assert.ok(!isCitationMarker("toolu_01"));
  assert.ok(!isCitationMarker("[[corpus:has space]]"));
  const out = "see [[corpus:a#p1]] and [[corpus:b]], again [[corpus:a#p1]]";
  assert.deepEqual(extractCitationMarkers(out), ["[[corpus:a#p1]]", "[[corpus:b]]"]);
});
