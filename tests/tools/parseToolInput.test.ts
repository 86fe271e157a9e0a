import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { defineTool, parseToolInput, ToolDefinitionError } from "../../tools/index.ts";

const tool = defineTool({
  name: "lookup",
  description: "test tool",
  input: z.object({ doc_id: z.string(), options: z.object({ pages: z.array(z.number().int()) }).optional() }),
  effect: "read_only",
  run: ({ doc_id }) => doc_id,
});

test("valid input is returned parsed", () => {
  assert.deepEqual(parseToolInput(tool, { doc_id: "a" }), { ok: true, value: { doc_id: "a" } });
});

test("invalid input yields a message that names the failing path", () => {
  const check = parseToolInput(tool, { doc_id: 3, options: { pages: [1, "two"] } });
  assert.equal(check.ok, false);
  if (check.ok) return;
  assert.deepEqual(
    check.issues.map((i) => i.path),
    [["doc_id"], ["options", "pages", 1]],
  );
  assert.match(check.message, /Invalid input for tool "lookup"/);
  assert.match(check.message, /doc_id: /);
  assert.match(check.message, /options\.pages\.1: /);
  assert.match(check.message, /call lookup again/);
});

test("definitions are checked: names and object inputs", () => {
  const base = { description: "x", effect: "read_only" as const, run: () => "" };
  assert.throws(() => defineTool({ ...base, name: "Bad Name", input: z.object({}) }), ToolDefinitionError);
  assert.throws(() => defineTool({ ...base, name: "scalar", input: z.string() }), ToolDefinitionError);
});
