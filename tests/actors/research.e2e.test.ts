import { before, test } from "node:test";
import assert from "node:assert/strict";
import { type Outcome, type RunHandle, type Runtime, requestDigest } from "../../actors/index.ts";
import { MAIN_SYSTEM } from "../../actors/request/prompts.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { DELEGATIONS, OFFLINE_QUESTION, offlineResearchPolicy } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";
import { answerOf, childrenOf, firstMessageText, gate, ofType, runtimeWith, streamOf, textsOf, within } from "./fixtures.ts";
import { executorStreamId } from "../../events/index.ts";

const CHILD_TOOLS = new Set(["web_search", "web_fetch", "document_read", "compute"]);

forEachEngine("research run under scripted models", (ctx) => {
  // One run, observed from every side: Main's model, the Children's model, the log, the transcripts.
  let main: ScriptedModel;
  let child: ScriptedModel;
  let runtime: Runtime;
  let run: RunHandle;
  let outcome: Outcome;
  let events: RecordedEvent[];
  let children: string[];
  let allThreeWaited = false;

  before(async () => {
    main = new ScriptedModel({ name: "main", policy: offlineResearchPolicy });
    // No Child gets its first reply until all three are waiting for one: Children run one after
    // another would never get there (the wait times out and the run fails). Later turns take a while.
    let waiting = 0;
    const allWaiting = gate();
    const childPolicy: ScriptPolicy = async (request, call) => {
      if (turnsTaken(request) === 0) {
        if (++waiting === 3) {
          allThreeWaited = true;
          allWaiting.open();
        }
        await within(5_000, allWaiting.opened);
      }
      return offlineResearchPolicy(request, call);
    };
    child = new ScriptedModel({ name: "child", policy: childPolicy, latencyMs: 40 });
    // The scenario's own tools: the Children search, fetch and read the etf corpus and compute in the sandbox.
    runtime = runtimeWith(ctx.store, { main, child }, await scenarioHosting(ctx.db.database));
    run = await runtime.startRun(OFFLINE_QUESTION);
    outcome = await within(60_000, run.result);
    events = await ctx.store.readRun(run.runId);
    children = childrenOf(events, run.mainExecutorId);
  });

  test("Main delegates to three Children, consumes their handoffs and settles with an answer", async () => {
    assert.equal(outcome.kind, "answer");
    assert.equal(ofType(events, "executor_admitted").length, 4);
    assert.equal(children.length, 3);
    const profiles = ofType(events, "executor_admitted").filter((e) => e.data.role === "child").map((e) => e.data.profile?.id);
    assert.deepEqual(profiles.sort(), ["compute-analyst", "document-reader", "web-explorer"]);

    const committed = ofType(events, "handoff_committed");
    assert.equal(committed.length, 3);
    assert.ok(committed.every((e) => !e.data.forced && e.data.repairs === 0 && e.data.handoff.executionState === "completed"));

    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    const consumed = ofType(mainStream, "handoff_consumed");
    assert.equal(consumed.length, 3);
    assert.deepEqual(consumed.map((e) => e.data.childExecutorId).sort(), [...children].sort());
    for (const c of consumed) {
      const source = committed.find((e) => e.metadata.executorId === c.data.childExecutorId)!;
      assert.equal(c.data.handoffEventId, source.eventId);
      assert.deepEqual(c.data.handoff, source.data.handoff);
    }
    const last = mainStream.at(-1)!;
    assert.equal(last.type, "settled");
    assert.equal(last.type === "settled" && last.data.outcome, "answered");
    assert.deepEqual(last.type === "settled" && last.data.answer, outcome.kind === "answer" && outcome.answer);
  });

  test("every observed claim of the answer cites a finding a Child handed back, and every Child is cited", () => {
    const answer = answerOf(outcome);
    const findingsOf = new Map(
      ofType(events, "handoff_committed").map((e) => [e.metadata.executorId, (e.data.handoff.findings as unknown[]).length]),
    );
    const observed = answer.sections.flatMap((s) => s.claims).filter((c) => c.basis === "observed");
    assert.ok(observed.length >= 3);
    for (const claim of observed) {
      assert.ok(claim.citations.length > 0);
      for (const cite of claim.citations) {
        assert.ok(children.includes(cite.executor), `cites unknown executor ${cite.executor}`);
        assert.ok(cite.finding < findingsOf.get(cite.executor)!);
      }
    }
    assert.deepEqual(new Set(observed.flatMap((c) => c.citations.map((x) => x.executor))), new Set(children));
  });

  test("Main's model sees the handoffs and nothing of the Children's own tool work", async () => {
    assert.equal(main.requests.length, 2);
    for (const request of main.requests) {
      assert.equal(request.system, MAIN_SYSTEM);
      for (const m of request.messages) {
        if (typeof m.content === "string") continue;
        for (const block of m.content) {
          if (block.type === "tool_use") assert.ok(!CHILD_TOOLS.has(block.name), `Main was shown a ${block.name} call`);
        }
      }
    }

    // The second request carries exactly three tool results: one handoff per delegate call.
    const [, second] = main.requests;
    const delegateIds = second.messages.flatMap((m) =>
      m.role === "assistant" ? m.content.flatMap((b) => (b.type === "tool_use" && b.name === "delegate" ? [b.id] : [])) : [],
    );
    const results = second.messages.flatMap((m) =>
      m.role === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
    );
    assert.equal(delegateIds.length, 3);
    assert.deepEqual(results.map((r) => r.type === "tool_result" && r.tool_use_id).sort(), [...delegateIds].sort());
    const committed = ofType(events, "handoff_committed");
    for (const r of results) {
      assert.ok(r.type === "tool_result" && !r.is_error);
      const shown = JSON.parse(r.content) as { child_executor_id: string; transcript_id: string; handoff: unknown };
      assert.deepEqual(Object.keys(shown).sort(), ["child_executor_id", "handoff", "transcript_id"]);
      assert.ok(children.includes(shown.child_executor_id));
      assert.equal(shown.transcript_id, shown.child_executor_id);
      assert.deepEqual(shown.handoff, committed.find((e) => e.metadata.executorId === shown.child_executor_id)!.data.handoff);
    }

    // No raw output of a Child's tool reached Main (search hits, fetched pages, the PDF's text, the overlap computation).
    const childOutputs = ofType(events, "tool_completed").filter((e) => e.metadata.executorId !== run.mainExecutorId);
    assert.deepEqual(new Set(childOutputs.map((e) => e.data.tool)), CHILD_TOOLS);
    const seenByMain = main.requests.flatMap(textsOf);
    for (const output of childOutputs) {
      assert.ok(!seenByMain.some((text) => text.includes(output.data.output)), `Main saw the raw output of ${output.data.tool}`);
    }
    assert.ok(!seenByMain.some((text) => /<untrusted[-_](source|document)|"files_written"/.test(text)));
  });

  test("the three Children ran in parallel: all waited for the model at once, all admitted before any handed off, turns interleaved", () => {
    assert.equal(allThreeWaited, true);
    const admitted = ofType(events, "executor_admitted").filter((e) => e.data.role === "child").map((e) => e.globalPosition);
    const handedOff = ofType(events, "handoff_committed").map((e) => e.globalPosition);
    assert.ok(Math.max(...admitted) < Math.min(...handedOff));

    const childTurns = ofType(events, "turn").filter((e) => children.includes(e.metadata.executorId));
    const firstTurns = children.map((id) => childTurns.find((e) => e.metadata.executorId === id)!.globalPosition);
    const lastTurns = children.map((id) => childTurns.findLast((e) => e.metadata.executorId === id)!.globalPosition);
    // Every Child took its first turn before any Child took its last.
    assert.ok(Math.max(...firstTurns) < Math.min(...lastTurns));
  });

  test("each executor's stream is in per-executor order and its hash chain verifies", async () => {
    for (const id of [run.mainExecutorId, ...children]) {
      const stream = await streamOf(ctx.store, id);
      assert.deepEqual(stream.map((e) => e.streamVersion), stream.map((_, i) => i + 1));
      assert.equal(stream[0].type, "executor_admitted");
      assert.deepEqual(await ctx.store.verify(executorStreamId(id)), { ok: true, streamId: executorStreamId(id), count: stream.length, lastHash: stream.at(-1)!.hash });
      assert.deepEqual(ofType(stream, "turn").map((e) => e.data.turn), ofType(stream, "turn").map((_, i) => i + 1));
    }
  });

  test("a Child's transcript proves every request and starts with only its delegated task", async () => {
    for (const id of children) {
      const transcript = await runtime.transcript(id);
      const admitted = ofType(await streamOf(ctx.store, id), "executor_admitted")[0];
      const task = DELEGATIONS.find((d) => d.profile === admitted.data.profile?.id)!;

      assert.equal(transcript.role, "child");
      assert.equal(transcript.outcome?.kind, "handoff");
      assert.ok(transcript.turns.length >= 2);
      assert.ok(transcript.turns.every((t) => t.digestMatches), `a rebuilt request of ${task.profile} does not match its digest`);

      const first = transcript.turns[0].request;
      assert.equal(first.messages.length, 1);
      const text = firstMessageText(first);
      for (const part of [task.question, task.context, task.done_when]) assert.ok(text.includes(part));
      assert.ok(!text.includes(OFFLINE_QUESTION));
      assert.ok(!first.system.includes(MAIN_SYSTEM) && first.system.startsWith("You are a Child"));
      assert.ok(!first.tools.some((t) => t.name === "delegate" || t.name === "answer"));

      // The rebuilt requests are the requests the Child's model really received.
      const method = /# (Web explorer|Document reader|Compute analyst)/.exec(first.system)![1];
      const received = child.requests.filter((r) => r.system.includes(`# ${method}`));
      // (Compared by canonical digest: a failing deepEqual of whole requests takes minutes to print.)
      assert.deepEqual(transcript.turns.map((t) => requestDigest(t.request)), received.map(requestDigest));
    }
    const mainTranscript = await runtime.transcript(run.mainExecutorId);
    assert.ok(mainTranscript.turns.every((t) => t.digestMatches));
    assert.deepEqual(mainTranscript.turns.map((t) => requestDigest(t.request)), main.requests.map(requestDigest));
  });
});
