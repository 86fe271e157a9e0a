import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ValidationError } from "../../core/errors.ts";
import type { NewEvent } from "../../events/index.ts";
import { checkedAhead, validateEvents } from "../../events/validateEvents.ts";

const metadata = { runId: "run-1", executorId: "exec-1" };
const toolCalled = (input: unknown): NewEvent =>
  ({ type: "tool_called", data: { turn: 1, toolUseId: "toolu_1", tool: "lookup", input, effect: "read_only" }, metadata }) as NewEvent;

function refusal(f: () => unknown): ValidationError {
  try {
    f();
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error;
  }
  assert.fail("expected a ValidationError");
}

/** What the stored payload must be: the parsed value after a JSON round trip, keys in the same order. */
function assertStoredAsRoundTrip(input: unknown): void {
  const [stored] = validateEvents([toolCalled(input)]);
  const expected = JSON.parse(JSON.stringify({ turn: 1, toolUseId: "toolu_1", tool: "lookup", input, effect: "read_only" }));
  assert.deepStrictEqual(stored.data, expected);
  assert.equal(JSON.stringify(stored.data), JSON.stringify(expected));
  assert.notEqual((stored.data as { input: unknown }).input === input && input !== null && typeof input === "object", true, "the stored value is a copy");
}

test("property: a payload is stored exactly as its JSON round trip (undefined dropped, Dates as strings, -0 as 0, key order kept)", () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), assertStoredAsRoundTrip), { numRuns: 500 });
  const storable = fc.anything({
    withDate: true,
    withSparseArray: true,
    withNullPrototype: true,
    withObjectString: true,
    stringUnit: "grapheme",
    values: [fc.string({ unit: "grapheme" }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(undefined)],
  });
  fc.assert(fc.property(storable, assertStoredAsRoundTrip), { numRuns: 1000 });
  for (const odd of [{ ["__proto__"]: { a: 1 } }, JSON.parse('{"__proto__": {"a": 1}, "b": [1]}'), [undefined, () => 1, -0], { when: new Date(0), n: new Number(3) }]) {
    assertStoredAsRoundTrip(odd);
  }
});

test("what jsonb cannot hold is refused with the path of each place, in order, across events", () => {
  const bad = { list: ["ok", "a\u0000b", { deep: "\ud800" }], n: Number.POSITIVE_INFINITY, nested: { ["k"]: [1, Number.NaN] } };
  const error = refusal(() => validateEvents([toolCalled("fine"), toolCalled(bad)]));
  assert.deepEqual(error.issues, [
    { path: ["events", 1, "data", "input", "list", 1], message: "strings may not contain U+0000" },
    { path: ["events", 1, "data", "input", "list", 2, "deep"], message: "string has a lone UTF-16 surrogate" },
    { path: ["events", 1, "data", "input", "n"], message: "numbers must be finite" },
    { path: ["events", 1, "data", "input", "nested", "k", 1], message: "numbers must be finite" },
  ]);
});

test("missing metadata and unknown types are named by event", () => {
  const error = refusal(() =>
    validateEvents([{ type: "nope", data: {}, metadata } as unknown as NewEvent, { ...toolCalled(1), metadata: { runId: "", executorId: "x" } } as NewEvent]),
  );
  assert.deepEqual(error.issues, [
    { path: ["events", 0, "type"], message: 'unknown event type "nope"' },
    { path: ["events", 1, "metadata", "runId"], message: "required non-empty string" },
  ]);
});

test("events checked ahead (a runner's held outcomes) come back frozen in their stored form, and are not parsed again when appended", () => {
  assert.deepEqual(refusal(() => checkedAhead([toolCalled(Number.NaN)])).issues[0].path, ["events", 0, "data", "input"]);
  const [kept] = checkedAhead([toolCalled({ fund: "ADIV", note: undefined })]);
  assert.ok(Object.isFrozen(kept));
  assert.deepEqual((kept.data as { input: unknown }).input, { fund: "ADIV" });
  const [again] = validateEvents([kept]);
  assert.equal(again.data, kept.data, "the append reuses what was validated, not a new parse");
  const [fresh] = validateEvents([{ ...kept }]);
  assert.notEqual(fresh.data, kept.data, "a copy is validated as any event is");
});
