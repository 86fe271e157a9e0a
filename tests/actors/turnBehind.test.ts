import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { postToExecutor } from "../../actors/index.ts";
import type { EventStore } from "../../events/index.ts";
import { type RunGovernance, createRunGovernance } from "../../governance/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { gate, ofType, runtimeWith, streamOf, textsOf, useReply, within } from "./fixtures.ts";

/**
 * A turn whose calls are all read-only is written while they run (actors/executorLog.ts, appendBehind)
 * when its call was reserved in the run's ledger: the calls start before the turn is committed, the next
 * model call only after it, and a request built before another writer's fact was folded is not sent.
 * Without a ledger (the runtime's default limits) the turn is committed first, as before.
 */
const answer = {
  content: [
    {
      type: "tool_use" as const,
      name: "answer",
      input: { summary: "(scripted) Looked up.", sections: [{ heading: "View", claims: [{ text: "It depends.", basis: "judgment", citations: [] }] }] },
    },
  ],
};

/** A read-only tool that says when it runs. */
function lookupTool(onRun: () => void) {
  return defineTool({
    name: "lookup",
    description: "Looks a key up (test tool).",
    input: z.object({ key: z.string() }),
    effect: "read_only",
    run: ({ key }) => (onRun(), `value of ${key}`),
  });
}

/** The store, with the append of the first turn held back until `before` resolves. */
function holdingFirstTurn(store: EventStore, before: () => Promise<void>): EventStore {
  return {
    ...store,
    async append(streamId, expectedVersion, events) {
      if (events.some((e) => e.type === "turn" && (e.data as { turn: number }).turn === 1)) await before();
      return store.append(streamId, expectedVersion, events);
    },
  };
}

forEachEngine("A read-only turn written behind", (ctx) => {
  test("its calls run before the turn is committed; the next model call waits for the commit", async () => {
    const ran = gate();
    let committedAtNextCall: boolean | undefined;
    let mainId = "";
    const policy: ScriptPolicy = async (_request, call) => {
      if (call === 0) return useReply("lookup", { key: "k1" });
      const stream = await streamOf(ctx.store, mainId);
      committedAtNextCall = ofType(stream, "turn").some((t) => t.data.turn === 1);
      return answer;
    };
    const model = new ScriptedModel({ name: "behind", policy });
    // The turn's commit waits for its call to run, then a while: with the commit awaited first, this never ends.
    const store = holdingFirstTurn(ctx.store, async () => {
      await ran.opened;
      await sleep(150);
    });
    const runtime = runtimeWith(
      store,
      { main: model, child: model },
      { governance: ({ post }) => createRunGovernance({ db: ctx.store.database, post }), tools: new ToolRegistry().register(lookupTool(() => ran.open())) },
    );
    const run = await runtime.startRun("Look k1 up.");
    mainId = run.mainExecutorId;
    const outcome = await within(10_000, run.result);
    assert.equal(outcome.kind, "answer");
    assert.equal(committedAtNextCall, true, "the second call saw the first turn committed");

    // The log is what it would be with the turn committed first: the turn (and its settlement), then the call as one row.
    const stream = await streamOf(ctx.store, mainId);
    const [turn1, turn2] = ofType(stream, "turn");
    const [row] = ofType(stream, "tool_completed");
    assert.ok(turn1.streamVersion < row.streamVersion && row.streamVersion < turn2.streamVersion);
    assert.deepEqual((row.data as { intent?: unknown }).intent, { turn: 1, input: { key: "k1" }, effect: "read_only" });
    assert.equal(ofType(stream, "tool_called").length, 0, "no intent row of its own");
  });

  test("a request built before another writer's fact was folded is not sent: it is built again with the fact", async () => {
    const ran = gate();
    const reserving = gate();
    let reservations = 0;
    const policy: ScriptPolicy = async (_request, call) => (call === 0 ? useReply("lookup", { key: "k1" }) : answer);
    const model = new ScriptedModel({ name: "behind", policy });
    let mainId = "";
    let posted = false;
    // The first turn's commit waits until the second call's request is built and reserving; a reminder is posted to
    // Main first, so the commit conflicts and folds it (only once: the retry goes through).
    const store = holdingFirstTurn(ctx.store, async () => {
      if (posted) return;
      posted = true;
      await ran.opened;
      await reserving.opened;
      const reminder = { type: "reminder_raised" as const, data: { reminderId: "rem-1", key: "test:rem-1", text: "Half the budget is spent.", facts: { percent: 50 } } };
      assert.equal((await postToExecutor(ctx.store, mainId, [reminder])).ok, true);
    });
    const governance = ({ post }: { post: Parameters<typeof createRunGovernance>[0]["post"] }): RunGovernance => {
      const ledger = createRunGovernance({ db: ctx.store.database, post });
      return {
        ...ledger,
        async beforeModelCall(...args) {
          if (++reservations === 2) reserving.open();
          return ledger.beforeModelCall(...args);
        },
      };
    };
    const runtime = runtimeWith(store, { main: model, child: model }, { governance, tools: new ToolRegistry().register(lookupTool(() => ran.open())) });
    const run = await runtime.startRun("Look k1 up.");
    mainId = run.mainExecutorId;
    assert.equal((await within(10_000, run.result)).kind, "answer");

    // Two requests reached the model; the second carries the reminder, built again after the fold.
    assert.equal(model.requests.length, 2);
    const reminded = (r: ModelRequest) => textsOf(r).some((t) => t.includes("Half the budget is spent."));
    assert.deepEqual(model.requests.map(reminded), [false, true]);
    assert.ok(reservations >= 3, `the superseded request's reservation and the one sent: ${reservations}`);
    const stream = await streamOf(ctx.store, mainId);
    assert.deepEqual(ofType(stream, "reminder_delivered").map((e) => e.data.turn), [2]);
  });
});

forEachEngine("A read-only turn without a ledger", (ctx) => {
  test("is committed before its calls run, as before: a commit held back until the call runs never ends", async () => {
    const ran = gate();
    const model = new ScriptedModel({ name: "first", policy: async (_r, call) => (call === 0 ? useReply("lookup", { key: "k1" }) : answer) });
    const store = holdingFirstTurn(ctx.store, () => ran.opened);
    const runtime = runtimeWith(store, { main: model, child: model }, { tools: new ToolRegistry().register(lookupTool(() => ran.open())) });
    const run = await runtime.startRun("Look k1 up.");
    await assert.rejects(within(1_000, run.result), /did not settle within 1000 ms/);
    ran.open();
    assert.equal((await within(10_000, run.result)).kind, "answer");
  });
});
