import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openStore } from "../../events/openStore.ts";
import { type CliStore, ariadne, cliStore } from "../cli/ariadneProcess.ts";
import { type OtlpSpan, startOtlpReceiver } from "./otlpReceiver.ts";
import { attr, memorySink } from "./spanSink.ts";

/**
 * `ariadne worker` with OTEL_EXPORTER_OTLP_ENDPOINT exports the spans of the
 * runs it hosts, as `run` and `serve` do; exporters sharing the store's
 * checkpoint take turns under its lease, so each span is sent once.
 */
describe("a worker and a resume export their runs' spans; exporters on one store send each span once", () => {
  let store: CliStore;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let runId: string;
  let spans: OtlpSpan[];
  before(async () => {
    store = await cliStore("worker_otlp");
    receiver = await startOtlpReceiver();
    const submitted = await ariadne(["submit", "--offline", "--json", ...store.args], store.env);
    assert.equal(submitted.code, 0, submitted.stderr);
    runId = JSON.parse(submitted.stdout).runId;
    const worker = await ariadne(["worker", "--idle-exit-ms", "1000", ...store.args], { ...store.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    assert.equal(worker.code, 0, worker.stderr);
    spans = receiver.spans.filter((s) => s.attributes["gen_ai.conversation.id"] === runId);
  });
  after(async () => {
    await receiver?.close();
    await store?.dispose();
  });

  test("the worker posts the spans of the run it hosted to the receiver, once each, with no orphan", () => {
    assert.ok(receiver.paths.some((p) => p.startsWith("/v1/traces application/json")), receiver.paths.join("\n"));
    for (const op of ["invoke_agent", "chat", "execute_tool"]) assert.ok(spans.some((s) => s.attributes["gen_ai.operation.name"] === op), op);
    const ids = spans.map((s) => s.spanId);
    assert.equal(new Set(ids).size, ids.length, "no span sent twice");
    assert.deepEqual(spans.filter((s) => s.parentSpanId && !ids.includes(s.parentSpanId)).map((s) => s.name), []);
    assert.ok(spans.some((s) => s.name.startsWith("invoke_agent") && s.attributes["ariadne.executor.role"] === "main" && !s.parentSpanId), "Main's segment is the root");
  });

  test("`ariadne resume` with the endpoint exports the spans of the run it finished before it exits", async () => {
    const submitted = await ariadne(["submit", "--offline", "--json", ...store.args], store.env);
    assert.equal(submitted.code, 0, submitted.stderr);
    const resumed = JSON.parse(submitted.stdout).runId as string;
    const result = await ariadne(["resume", resumed, "--json", ...store.args], { ...store.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    assert.equal(result.code, 0, result.stderr);
    const ofRun = receiver.spans.filter((s) => s.attributes["gen_ai.conversation.id"] === resumed);
    for (const op of ["invoke_agent", "chat", "execute_tool"]) assert.ok(ofRun.some((s) => s.attributes["gen_ai.operation.name"] === op), op);
    assert.equal(new Set(ofRun.map((s) => s.spanId)).size, ofRun.length, "no span sent twice");
  });

  test("two exporters at once on one checkpoint: together they send every span exactly once", async () => {
    const { store: events, close } = await openStore({ ...store.open, consistencyCheck: false });
    const [one, two, alone] = [memorySink(), memorySink(), memorySink()];
    try {
      // Another checkpoint than the worker's, so the whole log is exported again, by two at once.
      const subscriptionId = "telemetry-traces-two-at-once";
      const exporters = await Promise.all([one.export(events, { subscriptionId }), two.export(events, { subscriptionId })]);
      await Promise.all(exporters.map((e) => e.caughtUp()));
      await Promise.all(exporters.map((e) => e.stop()));
      const reference = await alone.export(events, { subscriptionId: "telemetry-traces-alone" });
      await reference.caughtUp();
      await reference.stop();

      const ofRun = (sink: ReturnType<typeof memorySink>) => sink.spans().filter((s) => attr(s, "gen_ai.conversation.id") === runId).map((s) => s.spanContext().spanId);
      const sent = [...ofRun(one), ...ofRun(two)];
      assert.ok(sent.length > 0);
      assert.equal(new Set(sent).size, sent.length, `a span sent twice (${ofRun(one).length} + ${ofRun(two).length})`);
      assert.deepEqual(sent.sort(), ofRun(alone).sort(), "every span of the run, as one exporter alone sends them");
    } finally {
      await Promise.all([one.close(), two.close(), alone.close()]);
      await close();
    }
  });
});
