import { test } from "node:test";
import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import { readConfig } from "../../cli/config.ts";
import { installTelemetry } from "../../cli/installTelemetry.ts";
import type { EventStore } from "../../events/index.ts";

// Never touched: with no endpoint, nothing subscribes to the store.
const untouchable = new Proxy({}, { get: (_, key) => assert.fail(`the store was used (${String(key)})`) }) as EventStore;

test("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is installed: no SDK, no exporter, no subscription, no global provider", async () => {
  const config = readConfig({});
  assert.equal(config.telemetry.otlpEndpoint, undefined);
  assert.equal(await installTelemetry(config.telemetry, untouchable), null);
  assert.equal(trace.getTracerProvider().constructor.name, "ProxyTracerProvider");
});

test("the telemetry settings come from the conventions' variables", () => {
  const { telemetry } = readConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "TRUE",
    OTEL_SERVICE_NAME: "research",
    TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  });
  assert.deepEqual(telemetry, {
    otlpEndpoint: "http://collector:4318",
    serviceName: "research",
    captureContent: true,
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    deno: false,
  });
  assert.equal(readConfig({}).telemetry.captureContent, false);
});
