import { test } from "node:test";
import assert from "node:assert/strict";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { canonicalJson } from "../../core/canonicalJson.ts";

/** The same bytes as the package, or the same refusal. */
function assertSameAsPackage(value: unknown): void {
  let expected: string | undefined;
  try {
    expected = canonicalize(value);
  } catch (error) {
    assert.throws(() => canonicalJson(value), { message: (error as Error).message });
    return;
  }
  assert.equal(canonicalJson(value), expected);
}

test("property: plain JSON (every code point, nested, unsorted keys) is written as the canonicalize package writes it", () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), assertSameAsPackage), { numRuns: 2000 });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }), assertSameAsPackage), { numRuns: 1000 });
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.oneof(fc.double(), fc.string({ unit: "binary" }), fc.constant(null))), assertSameAsPackage),
    { numRuns: 1000 },
  );
});

test("property: anything else (undefined, lone surrogates, NaN, -0, Dates, boxed values, sparse arrays) matches the package or its refusal", () => {
  fc.assert(
    fc.property(fc.anything({ withBoxedValues: true, withDate: true, withSparseArray: true, withNullPrototype: true, withObjectString: true }), assertSameAsPackage),
    { numRuns: 2000 },
  );
  fc.assert(fc.property(fc.string({ unit: "binary" }), assertSameAsPackage), { numRuns: 1000 });
});

test("values the package treats specially: toJSON, cycles, deep nesting, functions and symbols", () => {
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
  for (const v of values) assertSameAsPackage(v);
});
