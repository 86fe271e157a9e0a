import assert from "node:assert/strict";
import { test } from "node:test";
import { noChildHandedOff } from "../../actors/decide/finish.ts";

/**
 * Issue 17: Main answered "not collected" for every section after each Child
 * failed, and the run reported success. An answer of a Main that delegated and
 * got no handoff back is settled partial (exit 3), never a whole answer.
 */
test("Main's answer is partial when it delegated and no Child handed anything back; whole when one did, or none was asked", () => {
  const ended = { toolUseId: "t", consumed: true };
  const handed = { toolUseId: "t", consumed: true, handoff: { findings: [] } };
  assert.equal(noChildHandedOff({ children: { a: ended, b: ended, c: ended } }), true, "every Child failed: partial");
  assert.equal(noChildHandedOff({ children: { a: ended, b: handed } }), false, "one handoff: an answer");
  assert.equal(noChildHandedOff({ children: {} }), false, "no delegation: an answer from Main alone");
  assert.equal(noChildHandedOff({ children: { a: ended, b: { toolUseId: "t", consumed: false } } }), false, "a Child still at work: not decided here");
});
