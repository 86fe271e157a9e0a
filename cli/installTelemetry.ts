import { metrics, trace } from "@opentelemetry/api";
import { leaseOwner, ownerIsDead } from "../runs/lease/leaseOwner.ts";
import type { EventStore } from "../events/index.ts";
import { exportTraces } from "../telemetry/index.ts";
import type { TelemetrySettings } from "./config.ts";

export interface InstalledTelemetry {
  /** Exports what the log holds so far, then stops and flushes the exporters. */
  stop(): Promise<void>;
}

/** How long a stopping process waits for the exporter to reach the end of the log. */
const CATCH_UP_MS = 10_000;

/**
 * The OpenTelemetry SDK and its OTLP/HTTP exporters, installed only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (nothing at all otherwise), and the
 * exporter of the log's spans (telemetry/exportTraces.ts) feeding them. The
 * exporters read their other standard variables (OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ...) themselves. The SDK's id generator
 * gives each span the id the log derives for it (telemetry/plannedIds.ts).
 *
 * Under Deno with OTEL_DENO=true, Deno's built-in OpenTelemetry serves the
 * same API: no SDK is loaded, the spans go to Deno's provider (whose ids are
 * its own).
 */
export async function installTelemetry(settings: TelemetrySettings, store: EventStore, log: (line: string) => void = () => {}): Promise<InstalledTelemetry | null> {
  const onError = (e: unknown) => log(`telemetry: the span exporter stopped: ${(e as Error).message ?? e}`);
  // Named by host and process, so the next process takes over at once the export lease of one that crashed.
  const lease = { leaseOwner: leaseOwner("traces"), ownerIsDead };
  if (settings.deno) {
    const exporter = await exportTraces(store, { tracer: trace.getTracer("ariadne"), meter: metrics.getMeter("ariadne"), captureContent: settings.captureContent, onError, ...lease });
    return { stop: () => stopExporter(exporter) };
  }
  if (!settings.otlpEndpoint) return null;
  // Loaded only when wanted: a process without an endpoint never loads the SDK.
  const [{ TracerProvider, BatchSpanProcessor }, { MeterProvider, PeriodicExportingMetricReader }, { OTLPTraceExporter }, { OTLPMetricExporter }, { resourceFromAttributes }, { plannedIdGenerator }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/exporter-metrics-otlp-http"),
      import("@opentelemetry/resources"),
      import("../telemetry/plannedIds.ts"),
    ]);
  const resource = resourceFromAttributes({ "service.name": settings.serviceName });
  const tracerProvider = new TracerProvider({ resource, idGenerator: plannedIdGenerator, spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })] });
  const meterProvider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })] });
  const exporter = await exportTraces(store, {
    tracer: tracerProvider.getTracer("ariadne"),
    meter: meterProvider.getMeter("ariadne"),
    captureContent: settings.captureContent,
    flush: () => tracerProvider.forceFlush(),
    onError,
    ...lease,
  });
  return {
    async stop() {
      await stopExporter(exporter);
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

async function stopExporter(exporter: Awaited<ReturnType<typeof exportTraces>>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([exporter.caughtUp().catch(() => {}), new Promise((r) => (timer = setTimeout(r, CATCH_UP_MS)))]);
  clearTimeout(timer);
  await exporter.stop();
}
