import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Draft, NewEvent } from "../../events/index.ts";
import { isHeldIntent, isOutcomeOf, sortDrafts, withHeldOutcome } from "../../actors/heldCalls.ts";

const metadata = (causationId: string | null) => ({ runId: "run-1", executorId: "exec-1", causationId });
const intentDraft = (effect: "read_only" | "idempotent" | "effectful", extra = {}): Draft => ({
  type: "tool_called",
  data: { turn: 2, toolUseId: "toolu_a", tool: "lookup_price", input: { fund: "ADIV" }, effect, ...extra },
});
const held = (d: Draft, causationId: string | null): NewEvent => ({ type: d.type, data: d.data, metadata: metadata(causationId), eventId: randomUUID() }) as NewEvent;
const completed = (causationId: string): NewEvent => ({
  type: "tool_completed",
  data: { toolUseId: "toolu_a", tool: "lookup_price", output: "ADIV: 412p", artifacts: [], sources: [] },
  metadata: metadata(causationId),
  eventId: randomUUID(),
});

describe("one row per read-only call: what is held and how an outcome joins its intent", () => {
  test("only a read-only intent is held; one that may change something, or admits a Child, is appended before its effect", () => {
    assert.equal(isHeldIntent(intentDraft("read_only")), true);
    assert.equal(isHeldIntent(intentDraft("idempotent")), false);
    assert.equal(isHeldIntent(intentDraft("effectful")), false);
    assert.equal(isHeldIntent(intentDraft("read_only", { childExecutorId: "child-1" })), false);
  });

  test("an outcome whose intent is held becomes one row: the outcome carrying the intent, under the intent's id and causation", () => {
    const intent = held(intentDraft("read_only"), "turn-event");
    const rows = withHeldOutcome([intent], completed(intent.eventId!), []);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.type, "tool_completed");
    assert.equal(row.eventId, intent.eventId);
    assert.equal(row.metadata.causationId, "turn-event");
    assert.deepEqual((row.data as { intent?: unknown }).intent, { turn: 2, input: { fund: "ADIV" }, effect: "read_only" });
    assert.equal(isOutcomeOf([intent], { type: "tool_completed", data: row.data } as Draft), true);
  });

  test("an intent an append is already sending is not merged into: the outcome follows it as a row of its own, caused by it", () => {
    const intent = held(intentDraft("read_only"), "turn-event");
    const outcome = completed(intent.eventId!);
    const rows = withHeldOutcome([intent], outcome, [intent]);
    assert.deepEqual(rows.map((e) => e.type), ["tool_called", "tool_completed"]);
    assert.equal(rows[0], intent, "the intent being sent keeps its identity (the append removes what it sent by identity)");
    assert.equal(rows[1].metadata.causationId, intent.eventId);
    assert.equal((rows[1].data as { intent?: unknown }).intent, undefined);
  });

  test("an outcome with no held intent (committed before) is held as it is", () => {
    const rows = withHeldOutcome([], completed("intent-committed-earlier"), []);
    assert.deepEqual(rows.map((e) => [e.type, (e.data as { intent?: unknown }).intent]), [["tool_completed", undefined]]);
  });

  test("a batch: a read-only intent waits for its outcome, one that may change something is appended now, an outcome joins its held intent", () => {
    const other: Draft = { type: "settled", data: { outcome: "handed_off" } };
    const readOnly = intentDraft("read_only");
    const write = { ...intentDraft("idempotent"), data: { ...intentDraft("idempotent").data, toolUseId: "toolu_b" } } as Draft;
    assert.deepEqual(sortDrafts([], [other, readOnly, write]), { now: [other, write], later: [readOnly], joining: [] });
    const outcome = { type: "tool_failed", data: { toolUseId: "toolu_a", tool: "lookup_price", reason: "cancelled", message: "stopped" } } as Draft;
    const intent = held(readOnly, "turn-event");
    assert.deepEqual(sortDrafts([intent], [outcome, other]), { now: [other], later: [], joining: [outcome] });
    assert.deepEqual(sortDrafts([], [outcome]), { now: [outcome], later: [], joining: [] });
  });
});
