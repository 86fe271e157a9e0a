import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CliStore, ariadne, cliStore } from "../cli/ariadneProcess.ts";
import { type OtlpSpan, startOtlpReceiver } from "./otlpReceiver.ts";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

/**
 * `ariadne run` with OTEL_EXPORTER_OTLP_ENDPOINT: the SDK and the OTLP/HTTP
 * exporters installed, the run's spans posted as JSON to a receiver the test
 * runs (without it nothing is installed: tests/telemetry/installTelemetry.test.ts).
 */
describe("ariadne run exports its spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  let store: CliStore;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let runId: string;
  let spans: OtlpSpan[];
  before(async () => {
    store = await cliStore("otlp");
    receiver = await startOtlpReceiver();
    const run = await ariadne(["run", "--json", "--scenario", "etf-overlap", ...store.args], {
      ...store.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      TRACEPARENT: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
    });
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
    spans = receiver.spans.filter((s) => s.attributes["gen_ai.conversation.id"] === runId);
  });
  after(async () => {
    await receiver?.close();
    await store?.dispose();
  });

  test("the spans reach the receiver as OTLP/JSON, in the trace TRACEPARENT named, Main under the caller's span", () => {
    assert.ok(receiver.paths.some((p) => p.startsWith("/v1/traces application/json")), receiver.paths.join("\n"));
    assert.ok(spans.length > 0, `spans of run ${runId}`);
    assert.deepEqual(new Set(spans.map((s) => s.traceId)), new Set([TRACE_ID]));
    const main = spans.find((s) => s.attributes["gen_ai.operation.name"] === "invoke_agent" && s.attributes["ariadne.executor.role"] === "main")!;
    assert.equal(main.parentSpanId, CALLER_SPAN);
    const ids = new Set(spans.map((s) => s.spanId));
    assert.deepEqual(spans.filter((s) => s.parentSpanId && s.parentSpanId !== CALLER_SPAN && !ids.has(s.parentSpanId)).map((s) => s.name), []);
    for (const op of ["invoke_agent", "chat", "execute_tool"]) assert.ok(spans.some((s) => s.attributes["gen_ai.operation.name"] === op), op);
  });

  test("the token usage and duration histograms are posted to /v1/metrics", () => {
    assert.ok(receiver.metricNames.includes("gen_ai.client.token.usage"), receiver.metricNames.join(", "));
    assert.ok(receiver.metricNames.includes("gen_ai.client.operation.duration"));
  });
});
