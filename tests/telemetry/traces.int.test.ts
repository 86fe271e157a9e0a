import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { SpanStatusCode } from "@opentelemetry/api";
import { type RecordedEvent, intentOf } from "../../events/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, openHarness, postJson, waitForFinal } from "../http/harness.ts";
import { attr, memorySink, orphans, parentOf } from "./spanSink.ts";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

forEachEngine("spans derived from a three-Child run's events", (ctx) => describe("traces", () => {
  let h: Harness;
  let runId: string;
  let events: RecordedEvent[];
  let spans: ReadableSpan[];
  const sink = memorySink();
  before(async () => {
    h = await openHarness(ctx.store);
    const client = await h.key("client", h.tenant());
    const created = (await (await h.app.request("/v1/runs", postJson(client, { offline: true }, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` }))).json()) as { id: string };
    runId = (await waitForFinal(h.app, client, created.id)).id;
    events = await ctx.store.readRun(runId);
    const exported = await sink.export(ctx.store);
    await exported.caughtUp();
    await exported.stop();
    spans = sink.spans().filter((s) => attr(s, "gen_ai.conversation.id") === runId);
  });
  after(async () => {
    await h.close();
    await sink.close();
  });

  const ofType = <T extends RecordedEvent["type"]>(type: T) => events.filter((e) => e.type === type) as RecordedEvent<T>[];
  const named = (operation: string) => spans.filter((s) => attr(s, "gen_ai.operation.name") === operation);

  test("the run's trace is the one its POST named in traceparent, and Main hangs under the caller's span", () => {
    const submitted = ofType("run_submitted")[0];
    assert.deepEqual((submitted.data.options as { trace?: unknown }).trace, { traceId: TRACE_ID, parentSpanId: CALLER_SPAN, sampled: true });
    assert.ok(spans.length > 0);
    assert.deepEqual(new Set(spans.map((s) => s.spanContext().traceId)), new Set([TRACE_ID]));
    const main = named("invoke_agent").filter((s) => attr(s, "ariadne.executor.role") === "main");
    assert.equal(main.length, 1);
    assert.equal(parentOf(main[0]), CALLER_SPAN);
    assert.deepEqual(orphans(spans, CALLER_SPAN), []);
  });

  test("one invoke_agent span per executor, one chat span per turn, one execute_tool span per tool call", () => {
    const admitted = ofType("executor_admitted");
    assert.equal(admitted.filter((e) => e.data.role === "child").length, 3, "the scenario delegates three Children");
    assert.deepEqual(named("invoke_agent").map((s) => attr(s, "gen_ai.agent.id")).sort(), admitted.map((e) => e.metadata.executorId).sort());
    assert.equal(named("chat").length, ofType("turn").length);
    assert.deepEqual(named("execute_tool").map((s) => attr(s, "gen_ai.tool.call.id")).sort(), events.flatMap((e) => intentOf(e)?.toolUseId ?? []).sort());
    for (const s of spans) assert.equal(s.name, `${attr(s, "gen_ai.operation.name")} ${attr(s, { invoke_agent: "gen_ai.agent.name", chat: "gen_ai.request.model", execute_tool: "gen_ai.tool.name" }[attr(s, "gen_ai.operation.name") as string]!)}`);
  });

  test("a chat span carries its turn's models and usage, its times from the event, and points back into the log", () => {
    for (const turn of ofType("turn")) {
      const span = named("chat").find((s) => attr(s, "ariadne.event.end.position") === turn.globalPosition)!;
      assert.ok(span, `the span of turn ${turn.eventId}`);
      assert.equal(attr(span, "gen_ai.request.model"), turn.data.request.model);
      assert.equal(attr(span, "gen_ai.response.model"), turn.data.model);
      assert.equal(attr(span, "gen_ai.usage.input_tokens"), turn.data.usage.inputTokens);
      assert.equal(attr(span, "gen_ai.usage.output_tokens"), turn.data.usage.outputTokens);
      assert.equal(attr(span, "gen_ai.agent.id"), turn.metadata.executorId);
      assert.equal(attr(span, "ariadne.event.end.hash"), turn.hash);
      const endMs = span.endTime[0] * 1000 + span.endTime[1] / 1e6;
      assert.equal(Math.round(endMs), turn.recordedAt.getTime());
      assert.equal(attr(span, "gen_ai.output.messages"), undefined, "message content is not recorded by default");
    }
  });

  test("a Child's invoke_agent span is a child of the execute_tool span of the delegate call that made it", () => {
    for (const admitted of ofType("executor_admitted").filter((e) => e.data.role === "child")) {
      const child = named("invoke_agent").find((s) => attr(s, "gen_ai.agent.id") === admitted.metadata.executorId)!;
      const delegate = named("execute_tool").find((s) => s.spanContext().spanId === parentOf(child))!;
      assert.ok(delegate, `the parent of child ${admitted.metadata.executorId}`);
      assert.equal(attr(delegate, "gen_ai.tool.name"), "delegate");
      assert.equal(attr(delegate, "gen_ai.tool.call.id"), admitted.data.parentToolUseId);
      assert.equal(attr(delegate, "gen_ai.agent.id"), admitted.data.parentExecutorId);
    }
    for (const s of spans.filter((s) => attr(s, "ariadne.executor.role") !== "main")) assert.ok(parentOf(s), `${s.name} has a parent`);
  });

  test("the Checker, started by the host on Main's answer, hangs under Main's invoke_agent span", () => {
    const [checker] = ofType("executor_admitted").filter((e) => e.data.role === "checker");
    assert.ok(checker, "the run was checked by the Checker role");
    const span = named("invoke_agent").find((s) => attr(s, "gen_ai.agent.id") === checker.metadata.executorId)!;
    const main = named("invoke_agent").find((s) => attr(s, "ariadne.executor.role") === "main")!;
    assert.equal(parentOf(span), main.spanContext().spanId);
  });

  test("the token usage and operation duration histograms count the run's turns", async () => {
    const metrics = await sink.metrics();
    const usage = metrics.find((m) => m.descriptor.name === "gen_ai.client.token.usage")!;
    const duration = metrics.find((m) => m.descriptor.name === "gen_ai.client.operation.duration")!;
    assert.ok(usage && duration);
    const input = usage.dataPoints.filter((p) => p.attributes["gen_ai.token.type"] === "input").reduce((n, p) => n + (p.value as { sum: number }).sum, 0);
    assert.ok(input >= ofType("turn").reduce((n, t) => n + t.data.usage.inputTokens, 0));
    assert.equal(duration.descriptor.unit, "s");
  });

  test("exported again from the stored checkpoint: nothing new; folded again from the start: the same span ids", async () => {
    sink.reset();
    const again = await sink.export(ctx.store);
    await again.caughtUp();
    await again.stop();
    assert.deepEqual(sink.spans(), []);
    const rebuilt = await sink.export(ctx.store, { subscriptionId: `traces-rebuild-${runId}` });
    await rebuilt.caughtUp();
    await rebuilt.stop();
    const ids = (list: ReadableSpan[]) => list.filter((s) => attr(s, "gen_ai.conversation.id") === runId).map((s) => s.spanContext().spanId).sort();
    assert.deepEqual(ids(sink.spans()), ids(spans));
  });

  test("with content capture on, chat spans carry the output messages and tool spans their arguments and results", async () => {
    sink.reset();
    const captured = await sink.export(ctx.store, { subscriptionId: `traces-content-${runId}`, captureContent: true });
    await captured.caughtUp();
    await captured.stop();
    const mine = sink.spans().filter((s) => attr(s, "gen_ai.conversation.id") === runId);
    assert.ok(mine.filter((s) => attr(s, "gen_ai.operation.name") === "chat").every((s) => typeof attr(s, "gen_ai.output.messages") === "string"));
    assert.ok(mine.filter((s) => attr(s, "gen_ai.operation.name") === "execute_tool").every((s) => typeof attr(s, "gen_ai.tool.call.arguments") === "string"));
    assert.ok(mine.every((s) => s.status.code !== SpanStatusCode.ERROR));
  });
}));
