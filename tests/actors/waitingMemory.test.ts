import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";
import type { RecordedEvent } from "../../events/index.ts";
import type { CallOptions, Model, ModelRequest, ModelResponse } from "../../models/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { ToolRegistry, createCorpusTools, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, delegatingMain, delegation, handoffInput, handoffReply, runtimeWith, useReply } from "./fixtures.ts";

// A full collection on demand (node --test does not pass --expose-gc).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const LOOKUPS = 3;

/** A read-only tool whose every result is a fresh object the test can watch (its output is that object's text). */
const lookup = defineTool({
  name: "bulky_lookup",
  description: "Looks a key up and returns a long text.",
  input: z.object({ key: z.string() }),
  effect: "read_only",
  run: ({ key }) => `${key}: ${"x".repeat(20_000)}`,
});

/** The Child's model: wraps each reply so the test holds it only weakly, and checks on its last call what is still reachable. */
class WatchedModel implements Model {
  readonly provider = "scripted";
  readonly scripted = true;
  readonly replies: WeakRef<ModelResponse>[] = [];
  /** The Child's recorded turn events, as the runtime reported them. */
  readonly turnEvents: WeakRef<RecordedEvent>[] = [];
  /** Replies and recorded turn events of earlier turns still reachable on the last call, after a full collection. */
  reachableOnLastCall = { replies: -1, turnEvents: -1 };

  constructor(private readonly inner: ScriptedModel) {}

  async complete(request: ModelRequest, options?: CallOptions): Promise<ModelResponse> {
    if (turnsTaken(request) === LOOKUPS) {
      // Let the previous turn's promise jobs finish, then collect: only a leak keeps an earlier reply.
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      const reachable = (refs: WeakRef<object>[]) => refs.filter((r) => r.deref() !== undefined).length;
      this.reachableOnLastCall = { replies: reachable(this.replies), turnEvents: reachable(this.turnEvents) };
    }
    const reply = await this.inner.complete(request, options);
    this.replies.push(new WeakRef(reply));
    return reply;
  }
}

forEachEngine("what a waiting executor holds", (ctx) => {
  test("an executor waiting on its model holds none of its earlier turns' model replies or recorded turn events (no race on a promise as long-lived as the executor, no value at the write queue's tail)", async () => {
    const child = new WatchedModel(
      new ScriptedModel({
        name: "child",
        policy: (request) => {
          const step = turnsTaken(request);
          return step < LOOKUPS ? useReply("bulky_lookup", { key: `k${step}` }) : handoffReply(handoffInput("[child] looked the keys up"));
        },
      }),
    );
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("Look the keys up.", "web-explorer", { tools: ["bulky_lookup"] })]) });
    // The Child's turns: the ones that offered it its terminal tool, handoff.
    const onEvent = (event: RecordedEvent) => {
      if (event.type === "turn" && (event as RecordedEvent<"turn">).data.request.toolNames.includes("handoff")) child.turnEvents.push(new WeakRef(event));
    };
    const runtime = runtimeWith(ctx.store, { main, child }, { tools: new ToolRegistry().register(...createCorpusTools(), lookup), onEvent });
    const run = await runtime.startRun("Which values do the keys have?");
    answerOf(await run.result);

    assert.equal(child.replies.length, LOOKUPS + 1);
    assert.equal(child.turnEvents.length, LOOKUPS + 1);
    assert.deepEqual(child.reachableOnLastCall, { replies: 0, turnEvents: 0 }, `earlier turns still reachable while the Child waited on its model (of ${LOOKUPS})`);
  });
});
