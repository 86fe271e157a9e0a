/**
 * Run under Deno with OTEL_DENO=true (tests/telemetry/denoOtel.test.ts): one
 * span from the log handed to Deno's built-in OpenTelemetry through the same
 * @opentelemetry/api the library uses, no SDK installed.
 */
import { trace } from "@opentelemetry/api";
import { emitSpan } from "../../telemetry/emitSpan.ts";

const end = new Date();
emitSpan(trace.getTracer("ariadne"), {
  name: "chat scripted",
  operation: "chat",
  kind: "client",
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  parentSpanId: "1111111111111111",
  sampled: true,
  start: new Date(end.getTime() - 1500),
  end,
  attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 42 },
  links: [],
});
