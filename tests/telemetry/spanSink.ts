import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { InMemoryMetricExporter, MeterProvider, AggregationTemporality, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { EventStore } from "../../events/index.ts";
import { type TraceExportOptions, exportTraces, plannedIdGenerator } from "../../telemetry/index.ts";

/** The SDK as the CLI installs it (planned ids), exporting into memory: spans and the GenAI histograms. */
export function memorySink() {
  const spans = new InMemorySpanExporter();
  const provider = new TracerProvider({ idGenerator: plannedIdGenerator, spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    reset: () => spans.reset(),
    async metrics() {
      await reader.forceFlush();
      return metrics.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
    },
    /** Exports the store's spans into this sink until stopped. */
    export: (store: EventStore, options: TraceExportOptions = {}) =>
      exportTraces(store, { tracer: provider.getTracer("ariadne"), meter: meterProvider.getMeter("ariadne"), flush: () => provider.forceFlush(), pollMs: 100, ...options }),
    close: async () => {
      await provider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export const attr = (span: ReadableSpan, name: string) => span.attributes[name];
export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** Spans whose parent is not among the spans (and not the given remote parent). */
export function orphans(spans: ReadableSpan[], remoteParent?: string): ReadableSpan[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  return spans.filter((s) => parentOf(s) && !ids.has(parentOf(s)!) && parentOf(s) !== remoteParent);
}
