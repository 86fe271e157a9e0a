import assert from "node:assert/strict";
import { test } from "node:test";
import { checkToolCall } from "../../tools/index.ts";

const use = (name: string) => ({ type: "tool_use" as const, id: "toolu_7", name, input: {} });

test("a granted tool passes", () => {
  assert.deepEqual(checkToolCall(["read_document", "quote_passage"], use("read_document")), { ok: true });
});

test("an ungranted call is refused with a message naming the tool and what is granted", () => {
  const check = checkToolCall(new Set(["read_document", "quote_passage"]), use("send_email"));
  assert.equal(check.ok, false);
  if (check.ok) return;
  assert.equal(check.refusal.toolUseId, "toolu_7");
  assert.equal(check.refusal.name, "send_email");
  assert.match(check.refusal.message, /"send_email" is not granted to this executor/);
  assert.match(check.refusal.message, /read_document, quote_passage/);
  assert.match(check.refusal.message, /gap/);
});

test("with nothing granted the message says so", () => {
  const check = checkToolCall([], use("read_document"));
  assert.ok(!check.ok && /No tools are granted/.test(check.refusal.message));
});
