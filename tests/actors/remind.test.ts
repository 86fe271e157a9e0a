import { test } from "node:test";
import assert from "node:assert/strict";
import { postToExecutor } from "../../actors/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { gate, ofType, runtimeWith, streamOf, textsOf, useReply, within } from "./fixtures.ts";

const judgment = {
  content: [
    {
      type: "tool_use" as const,
      name: "answer",
      input: { summary: "(scripted) A judgment.", sections: [{ heading: "View", claims: [{ text: "It depends on your goals.", basis: "judgment", citations: [] }] }] },
    },
  ],
};

const reminder = (reminderId: string, text: string) => ({
  type: "reminder_raised" as const,
  data: { reminderId, key: `test:${reminderId}`, text, facts: { percent: 80 } },
});

/** The text blocks of a request's messages that carry a runtime reminder. */
const reminderBlocks = (request: ModelRequest) =>
  request.messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "text" && b.text.startsWith("[Ariadne runtime reminder")) : []));

forEachEngine("Remind: delivery into the next request", (ctx) => {
  test("a reminder raised while a model call runs is delivered once, in the next request, marked as the runtime's; one raised during the last call is never counted as shown", async () => {
    const firstCall = gate();
    const lastCall = gate();
    const raisedFirst = gate();
    const raisedLast = gate();
    const policy: ScriptPolicy = async (_request, call) => {
      if (call === 0) {
        firstCall.open();
        await raisedFirst.opened;
        return useReply("search_corpus", { query: "ADIV ongoing charge" });
      }
      lastCall.open();
      await raisedLast.opened;
      return judgment;
    };
    const main = new ScriptedModel({ name: "main", policy });
    const runtime = runtimeWith(ctx.store, { main, child: main });
    const run = await runtime.startRun("What does ADIV cost?");

    await within(10_000, firstCall.opened);
    // Another writer appends while the executor waits on its model: its next append conflicts, re-reads and goes on.
    assert.equal((await postToExecutor(ctx.store, run.mainExecutorId, [reminder("rem-80", "80% of the run's token budget is spent.")])).ok, true);
    raisedFirst.open();
    await within(10_000, lastCall.opened);
    assert.equal((await postToExecutor(ctx.store, run.mainExecutorId, [reminder("rem-late", "Two minutes left.")])).ok, true);
    raisedLast.open();
    const outcome = await within(10_000, run.result);
    assert.equal(outcome.kind, "answer");

    // Asserted on the requests themselves: not in the first, exactly once in the second, as its own text block.
    assert.equal(main.requests.length, 2);
    assert.deepEqual(reminderBlocks(main.requests[0]), []);
    assert.deepEqual(reminderBlocks(main.requests[1]), [{ type: "text", text: "[Ariadne runtime reminder, not from the user] 80% of the run's token budget is spent." }]);
    assert.ok(!textsOf(main.requests[1]).some((t) => t.includes("Two minutes left.")));

    const stream = await streamOf(ctx.store, run.mainExecutorId);
    const delivered = ofType(stream, "reminder_delivered");
    assert.deepEqual(delivered.map((e) => e.data), [{ reminderId: "rem-80", turn: 2, rendered: "[Ariadne runtime reminder, not from the user] 80% of the run's token budget is spent." }]);
    // Delivered in the same append as the turn whose request carried it.
    const turn2 = ofType(stream, "turn").find((e) => e.data.turn === 2)!;
    assert.equal(delivered[0].streamVersion + 1, turn2.streamVersion);
    assert.equal(delivered[0].globalPosition + 1, turn2.globalPosition);
    assert.equal(ofType(stream, "reminder_raised").length, 2);

    // The transcript rebuild includes the delivered reminder, proven by the digests.
    const transcript = await runtime.transcript(run.mainExecutorId);
    assert.deepEqual(transcript.turns.map((t) => t.digestMatches), [true, true]);
    assert.deepEqual(transcript.turns[1].request, main.requests[1]);

    // Nothing reaches an executor once it is final.
    const late = await postToExecutor(ctx.store, run.mainExecutorId, [reminder("rem-after", "Too late.")]);
    assert.deepEqual([late.ok, !late.ok && late.reason], [false, "final"]);
  });
});
