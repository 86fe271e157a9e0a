import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { CHILD_SYSTEM, MAIN_SYSTEM } from "../../actors/request/prompts.ts";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import {
  type AnthropicWireServer,
  type WireBehaviour,
  type WireRequestBody,
  cutStream,
  errorEvent,
  httpError,
  overloaded,
  reply,
  startAnthropicWireServer,
  systemTextOf,
} from "../../models/testing/index.ts";
import { citationsIn } from "../../scenarios/requestView.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, childrenOf, delegation, handoffInput, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

const MODELS = { main: "claude-main-test", child: "claude-child-test" };

interface WireBlock {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  text?: string;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}
type WireMessage = { role: "user" | "assistant"; content: string | WireBlock[] };

const messagesOf = (body: WireRequestBody) => body.messages as WireMessage[];
const blocks = (m: WireMessage | undefined) => (m && Array.isArray(m.content) ? m.content : []);
const isMain = (body: WireRequestBody | undefined) => systemTextOf(body).startsWith("You are Main");
const isChild = (body: WireRequestBody | undefined) => systemTextOf(body).startsWith("You are a Child");
const toolNames = (body: WireRequestBody) => (body.tools as { name: string }[]).map((t) => t.name);

/** Main on the wire: delegates `tasks` in its first reply (tool input streamed in chunks), then answers from the handoffs. */
function mainOnWire(tasks: ReturnType<typeof delegation>[], body: WireRequestBody): WireBehaviour {
  const messages = messagesOf(body);
  if (messages.length === 1) {
    return reply(
      [{ type: "text", text: "Delegating." }, ...tasks.map((input) => ({ type: "tool_use" as const, name: "delegate", input }))],
      { chunks: 7 },
    );
  }
  const shown = blocks(messages.at(-1))
    .filter((b) => b.type === "tool_result")
    .map((b) => JSON.parse(b.content!) as { child_executor_id: string; handoff: { summary: string; findings: { claim: string }[] } });
  const claims = shown.flatMap((s) =>
    s.handoff.findings.length
      ? s.handoff.findings.map((f, i) => ({ text: f.claim, basis: "observed", citations: [{ executor: s.child_executor_id, finding: i }] }))
      : [{ text: `Not collected: ${s.handoff.summary}`, basis: "not_collected", citations: [] }],
  );
  return reply([{ type: "tool_use", name: "answer", input: { summary: "From the Children's handoffs.", sections: [{ heading: "Fees", claims }] } }]);
}

forEachEngine("Anthropic wire format through the runtime", (ctx) => {
  let server: AnthropicWireServer;
  before(async () => {
    server = await startAnthropicWireServer();
  });
  after(() => server.close());

  const modelAt = (maxRetries: number) =>
    new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries, initialRetryDelayMs: 1, maxRetryDelayMs: 10, idleTimeoutMs: 2_000, timeoutMs: 5_000 });

  test("a delegated run over the wire: streamed delegate, 529 retried, a cut stream recorded and retried, then an answer", { timeout: 30_000 }, async () => {
    server.requests.length = 0;
    const task = delegation("What is ADIV's ongoing charge and when does it change?", "web-explorer");
    const question = "What does ADIV cost me?";
    const firstTime = new Set<string>();
    const once = (key: string) => !firstTime.has(key) && !!firstTime.add(key);
    server.setHandler((body) => {
      if (isMain(body)) return mainOnWire([task], body);
      const messages = messagesOf(body);
      if (isChild(body) && messages.length === 1) {
        return once("529") ? overloaded() : reply([{ type: "tool_use", name: "search_corpus", input: { query: "ADIV ongoing charge" } }]);
      }
      if (isChild(body) && messages.length === 3) {
        const search = blocks(messages[1]).find((b) => b.type === "tool_use")!;
        const output = blocks(messages[2])[0].content!;
        const handoff = handoffInput("[web-explorer] ADIV's ongoing charge is being cut.", [
          { claim: "The ongoing charge falls to 0.29% on 1 October 2026.", evidence: { toolResults: [search.id], citations: citationsIn(output).slice(0, 1) }, confidence: "medium" },
        ]);
        const content = [{ type: "tool_use" as const, name: "handoff", input: handoff }];
        // First try: the connection drops in the middle of the tool input.
        return once("cut") ? cutStream(5, content) : reply(content);
      }
      return httpError(400, "invalid_request_error", "the test did not expect this request");
    });
    const runtime = runtimeWith(ctx.store, { main: modelAt(2), child: modelAt(2) }, { modelNames: MODELS });
    const run = await runtime.startRun(question);
    const outcome = await within(20_000, run.result);
    assert.equal(outcome.kind, "answer", JSON.stringify(outcome));

    const events = await ctx.store.readRun(run.runId);
    const [childId] = childrenOf(events, run.mainExecutorId);
    const bodies = server.requests.map((r) => r.body!);
    const mainBodies = bodies.filter(isMain);
    const childBodies = bodies.filter(isChild);
    assert.equal(mainBodies.length, 2);
    assert.equal(childBodies.length, 4, "529 + retry, cut + retry");
    assert.ok(bodies.every((b) => b.stream === true));

    // Main's first request: its system, every tool it holds plus delegate and answer, and only the question.
    assert.equal(mainBodies[0].model, MODELS.main);
    assert.equal(systemTextOf(mainBodies[0]), MAIN_SYSTEM);
    assert.deepEqual(toolNames(mainBodies[0]), ["search_corpus", "read_document", "quote_passage", "compute_overlap", "delegate", "answer"]);
    assert.deepEqual(mainBodies[0].messages, [{ role: "user", content: question }]);

    // The Child's first request: its own system with its method, its granted tools and only its task.
    const first = childBodies[0];
    assert.equal(first.model, MODELS.child);
    assert.ok(systemTextOf(first).startsWith(CHILD_SYSTEM));
    assert.ok(systemTextOf(first).includes("# Web explorer"));
    assert.deepEqual(toolNames(first), ["search_corpus", "read_document", "quote_passage", "handoff"]);
    const [taskMessage] = messagesOf(first);
    assert.equal(messagesOf(first).length, 1);
    assert.equal(taskMessage.role, "user");
    assert.ok(typeof taskMessage.content === "string" && taskMessage.content.includes(task.question));
    assert.ok(!(taskMessage.content as string).includes(question));
    // A retry sends the very same request.
    assert.deepEqual(childBodies[1], childBodies[0]);
    assert.deepEqual(childBodies[3], childBodies[2]);

    // The delegate call arrived as streamed input_json_delta chunks and was assembled intact.
    const mainStream = await streamOf(ctx.store, run.mainExecutorId);
    const [mainTurn] = ofType(mainStream, "turn");
    assert.deepEqual(mainTurn.data.response.content, [
      { type: "text", text: "Delegating." },
      { type: "tool_use", id: "toolu_wire_1_1", name: "delegate", input: task },
    ]);
    assert.equal(mainTurn.data.provider, "anthropic");
    assert.equal(mainTurn.data.scripted, false);
    assert.equal(mainTurn.data.responseId, "msg_wire_1", "the provider's response id is kept with the turn, for audits");

    // The cut stream is a recorded failed turn, then a retry that succeeds; the 529 was retried inside the model call.
    const childStream = await streamOf(ctx.store, childId);
    assert.deepEqual(childStream.map((e) => e.type), [
      "executor_admitted",
      "turn",
      // The read-only call: its intent and outcome in one row.
      "tool_completed",
      "turn_failed",
      "turn",
      "handoff_committed",
      "settled",
    ]);
    const [failed] = ofType(childStream, "turn_failed");
    assert.deepEqual(
      { turn: failed.data.turn, attempt: failed.data.attempt, kind: failed.data.kind, retryable: failed.data.retryable },
      { turn: 2, attempt: 1, kind: "stream_cut", retryable: true },
    );
    assert.deepEqual(ofType(childStream, "turn").map((e) => e.data.turn), [1, 2]);
    const [committed] = ofType(childStream, "handoff_committed");
    assert.equal(committed.data.forced, false);

    // Main got the handoff as the delegate's tool result, and answered citing it.
    const shown = blocks(messagesOf(mainBodies[1]).at(-1))[0];
    assert.equal(shown.type, "tool_result");
    assert.deepEqual(JSON.parse(shown.content!), { child_executor_id: childId, transcript_id: childId, handoff: committed.data.handoff });
    assert.deepEqual(answerOf(outcome).sections[0].claims[0].citations, [
      { executor: childId, finding: 0 },
    ]);
    for (const id of [run.mainExecutorId, childId]) {
      assert.ok((await runtime.transcript(id)).turns.every((t) => t.digestMatches));
    }
  });

  test("529 forever and `event: error` forever end as failed turns and forced partial handoffs, not a hang", { timeout: 30_000 }, async () => {
    server.requests.length = 0;
    const tasks = [delegation("Alpha: what are ADIV's fees?", "web-explorer"), delegation("Beta: which risks does ADIV disclose?", "document-reader")];
    server.setHandler((body) => {
      if (isMain(body)) return mainOnWire(tasks, body);
      const task = messagesOf(body)[0].content as string;
      if (task.includes("Alpha")) return overloaded();
      if (task.includes("Beta")) return errorEvent("overloaded_error", "Overloaded", 2);
      return httpError(400, "invalid_request_error", "the test did not expect this request");
    });
    const runtime = runtimeWith(ctx.store, { main: modelAt(1), child: modelAt(1) }, { modelNames: MODELS });
    const run = await runtime.startRun("Fees and risks of ADIV?");
    const outcome = await within(20_000, run.result);
    assert.equal(outcome.kind, "answer", JSON.stringify(outcome));

    const events = await ctx.store.readRun(run.runId);
    const children = childrenOf(events, run.mainExecutorId);
    assert.equal(children.length, 2);
    for (const childId of children) {
      const stream = await streamOf(ctx.store, childId);
      const where = ofType(stream, "executor_admitted")[0].data.task.question.startsWith("Alpha") ? /HTTP 529/ : /stream error event/;
      assert.deepEqual(stream.map((e) => e.type), ["executor_admitted", "turn_failed", "turn_failed", "turn_failed", "handoff_committed", "settled"]);
      const failures = ofType(stream, "turn_failed");
      assert.deepEqual(failures.map((e) => [e.data.turn, e.data.attempt, e.data.kind, e.data.retryable]), [
        [1, 1, "overloaded", true],
        [1, 2, "overloaded", true],
        [1, 3, "overloaded", true],
      ]);
      assert.match(failures[0].data.message, where);
      const [committed] = ofType(stream, "handoff_committed");
      const handoff = committed.data.handoff as { executionState: string; confidence: string; findings: unknown[]; gaps: string[] };
      assert.equal(committed.data.forced, true);
      assert.equal(handoff.executionState, "not_executed");
      assert.equal(handoff.confidence, "low");
      assert.deepEqual(handoff.findings, []);
      assert.match(handoff.gaps.at(-1)!, /^model call failed 3 time\(s\): model API overloaded/);
    }
    // Each model call is one request and one retry (maxRetries 1); three calls per Child.
    const childBodies = server.requests.map((r) => r.body!).filter(isChild);
    assert.equal(childBodies.filter((b) => (messagesOf(b)[0].content as string).includes("Alpha")).length, 6);
    assert.equal(childBodies.filter((b) => (messagesOf(b)[0].content as string).includes("Beta")).length, 6);

    const consumed = ofType(await streamOf(ctx.store, run.mainExecutorId), "handoff_consumed");
    assert.deepEqual(consumed.map((e) => e.data.childExecutorId).sort(), [...children].sort());
    assert.ok(consumed.every((e) => e.data.handoff.executionState === "not_executed"));
  });
});
