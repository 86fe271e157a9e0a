import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { canonicalJsonOfAnything } from "../../core/canonicalJsonOfAnything.ts";
import { jcsReference } from "../support/jcsReference.ts";

/** What JCS cannot write (which one is named first, when a value holds several, is the writer's order). */
const REFUSAL = /^(NaN is not allowed|Infinity is not allowed|Lone surrogate is not allowed|Circular reference detected|Do not know how to serialize a BigInt)$/;

/** The same bytes as RFC 8785 written plainly (tests/support/jcsReference.ts), or a refusal where it refuses. */
function assertAsRfc(value: unknown): void {
  let expected: string | undefined;
  try {
    expected = jcsReference(value);
  } catch (error) {
    assert.match((error as Error).message, REFUSAL);
    assert.throws(() => canonicalJson(value), (e: Error) => REFUSAL.test(e.message));
    return;
  }
  assert.equal(canonicalJson(value), expected);
}

test("property: plain JSON (every code point, nested, unsorted keys) is written as RFC 8785 says", () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), assertAsRfc), { numRuns: 2000 });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }), assertAsRfc), { numRuns: 1000 });
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.oneof(fc.double(), fc.string({ unit: "binary" }), fc.constant(null))), assertAsRfc),
    { numRuns: 1000 },
  );
});

test("property: anything else (undefined, lone surrogates, NaN, -0, Dates, boxed values, sparse arrays) is written as JSON.stringify sees it, or refused", () => {
  fc.assert(
    fc.property(fc.anything({ withBoxedValues: true, withDate: true, withSparseArray: true, withNullPrototype: true, withObjectString: true }), assertAsRfc),
    { numRuns: 2000 },
  );
  fc.assert(fc.property(fc.string({ unit: "binary" }), assertAsRfc), { numRuns: 1000 });
});

test("values JSON treats specially: toJSON, cycles, deep nesting, functions and symbols", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  let deep: unknown = "leaf";
  for (let i = 0; i < 1000; i++) deep = { [`k${i % 3}`]: deep, n: [i] };
  const values: unknown[] = [
    { when: new Date(0), later: { toJSON: () => undefined }, inner: { toJSON: () => ({ z: 1, a: [2] }) } },
    cyclic,
    deep,
    { f: () => 1, s: Symbol("x"), u: undefined, list: [undefined, () => 1, Symbol("y")] },
    undefined,
    () => 1,
    { big: 1n },
    [-0, 1e21, 1e-7, 0.1 + 0.2, Number.MAX_VALUE, Number.MIN_VALUE],
    { "\ud800": 1 },
    { é: 1, e: 2, "\u{1F600}": 3, "\uFFFF": 4, "": 5, "10": 6, "9": 7 },
  ];
  for (const v of values) assertAsRfc(v);
});

test("RFC 8785's own examples: number and string serialisation (3.2.2), property sorting (3.2.3)", () => {
  const input = String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`;
  assert.equal(canonicalJson(JSON.parse(input)), String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
  const sorting = { "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis" };
  assert.equal(
    canonicalJson(sorting),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test("refusals name what JCS cannot write; nesting deeper than the call stack is written, not overflowed", () => {
  assert.throws(() => canonicalJson({ a: NaN }), { message: "NaN is not allowed" });
  assert.throws(() => canonicalJson([Infinity]), { message: "Infinity is not allowed" });
  assert.throws(() => canonicalJson({ s: "\udc00" }), { message: "Lone surrogate is not allowed" });
  const cyclic: unknown[] = [];
  cyclic.push({ back: cyclic });
  assert.throws(() => canonicalJson(cyclic), { message: "Circular reference detected" });
  assert.equal(canonicalJson([new Number(2), new String("x"), new Boolean(false), [, 1]]), '[2,"x",false,[null,1]]');
  const depth = 200_000;
  let deep: unknown = 0;
  for (let i = 0; i < depth; i++) deep = [deep];
  assert.equal(canonicalJsonOfAnything(deep), `${"[".repeat(depth)}0${"]".repeat(depth)}`);
  assert.equal(canonicalJson(deep), `${"[".repeat(depth)}0${"]".repeat(depth)}`);
});
