import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonLength } from "../../models/estimateUsage.ts";

/** The length JSON.stringify gives the value where an array holds it (null for what JSON leaves out). */
const stringifiedLength = (v: unknown) => JSON.stringify([v]).length - 2;

test("property: jsonLength is the length of JSON.stringify, for plain JSON and for what JSON converts", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 5, stringUnit: "binary" }), (v) => {
      assert.equal(jsonLength(v), JSON.stringify(v).length);
      assert.equal(jsonLength(v), JSON.stringify(v).length, "again, from the memo");
    }),
    { numRuns: 1000 },
  );
  const odd = fc.anything({ withBoxedValues: true, withDate: true, withSparseArray: true, withNullPrototype: true, withObjectString: true, stringUnit: "binary" });
  fc.assert(
    fc.property(odd, (v) => assert.equal(jsonLength(v), stringifiedLength(v))),
    { numRuns: 1000 },
  );
  for (const v of [undefined, () => 1, Symbol("s"), Number.NaN, -0, { a: undefined, b: [undefined, () => 1], c: new Date(0) }, "\u2028\ud800\"\\\n"]) {
    assert.equal(jsonLength(v), stringifiedLength(v));
  }
});
