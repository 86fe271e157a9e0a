import { test } from "node:test";
import assert from "node:assert/strict";
import { sanitizeText } from "../../core/sanitizeText.ts";

test("clean values come back as they were, with no notes", () => {
  const value = { a: ["x", "emoji \ud83d\ude00 is a pair"], n: 1 };
  const result = sanitizeText(value, "input");
  assert.equal(result.value, value);
  assert.deepEqual(result.notes, []);
});

test("U+0000 and lone surrogates become U+FFFD, in strings and keys, each named with its path", () => {
  const { value, notes } = sanitizeText({ list: ["a\u0000b\u0000", "\udc00 and \ud800"], ["k\u0000"]: 1 }, "input");
  assert.deepEqual(value, { list: ["a\uFFFDb\uFFFD", "\uFFFD and \uFFFD"], ["k\uFFFD"]: 1 });
  assert.deepEqual(notes, ["U+0000 x2 in input.list[0]", "lone surrogate x2 in input.list[1]", "U+0000 x1 in a key in input"]);
  assert.ok(JSON.stringify(value).isWellFormed() && !JSON.stringify(value).includes("\u0000"));
});
