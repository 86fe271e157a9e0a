import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { ROOT, outputOf } from "../cli/ariadneProcess.ts";
import { startOtlpReceiver } from "./otlpReceiver.ts";

/**
 * Under Deno, its built-in OpenTelemetry (OTEL_DENO=true) serves the API the
 * library imports: a span emitted there reaches an OTLP receiver with its
 * name, attributes, trace id, parent and times. Its span id is Deno's own
 * (Deno's tracer takes no id generator): the README says so.
 */
test("under Deno with OTEL_DENO=true, the library's spans go out through Deno's built-in OpenTelemetry", async () => {
  const receiver = await startOtlpReceiver();
  try {
    const env = { ...process.env, OTEL_DENO: "true", OTEL_DENO_CONSOLE: "ignore", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "ariadne" };
    const deno = await outputOf(spawn("npx", ["deno", "run", "-A", "--no-check", "tests/telemetry/denoEmit.ts"], { cwd: ROOT, env, timeout: 60_000 }));
    assert.equal(deno.code, 0, deno.stderr);
    const span = receiver.spans.find((s) => s.name === "chat scripted");
    assert.ok(span, `received: ${receiver.paths.join(", ")}`);
    assert.equal(span.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
    assert.equal(span.parentSpanId, "1111111111111111");
    assert.equal(span.attributes["gen_ai.operation.name"], "chat");
    assert.equal(span.attributes["gen_ai.usage.input_tokens"], 42);
  } finally {
    await receiver.close();
  }
});
