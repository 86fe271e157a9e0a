import { type Histogram, type Meter, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer, TraceFlags, trace } from "@opentelemetry/api";
import { planIds } from "./plannedIds.ts";
import type { SpanRecord } from "./spanRecord.ts";

/**
 * Hands one span from the log to an OpenTelemetry tracer, through the API
 * only: its parent and links as span contexts built from the log's ids, its
 * times from the events, its own id planned (plannedIds.ts).
 */
export function emitSpan(tracer: Tracer, record: SpanRecord): void {
  const flags = record.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
  const context = (spanId: string, isRemote = false) => ({ traceId: record.traceId, spanId, traceFlags: flags, isRemote });
  const parent = record.parentSpanId ? trace.setSpanContext(ROOT_CONTEXT, context(record.parentSpanId, record.parentIsRemote)) : ROOT_CONTEXT;
  planIds({ traceId: record.traceId, spanId: record.spanId });
  let span;
  try {
    span = tracer.startSpan(
      record.name,
      {
        kind: record.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: record.start,
        attributes: { ...record.attributes, ...record.content },
        links: record.links.map((spanId) => ({ context: context(spanId), attributes: { "ariadne.link": "resumes" } })),
        root: !record.parentSpanId,
      },
      parent,
    );
  } finally {
    planIds(undefined);
  }
  if (record.errorType) span.setStatus({ code: SpanStatusCode.ERROR, message: record.errorMessage });
  span.end(record.end);
}

/** The conventions' client histograms: token usage per chat span, duration per chat span. */
export interface GenAiMetrics {
  tokenUsage: Histogram;
  operationDuration: Histogram;
}

export function genAiMetrics(meter: Meter): GenAiMetrics {
  return {
    tokenUsage: meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Number of input and output tokens used" }),
    operationDuration: meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration" }),
  };
}

export function recordMetrics(metrics: GenAiMetrics, record: SpanRecord): void {
  if (record.operation !== "chat") return;
  const a = record.attributes;
  const common = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": a["gen_ai.provider.name"] ?? "unknown",
    "gen_ai.request.model": a["gen_ai.request.model"],
    ...(a["gen_ai.response.model"] ? { "gen_ai.response.model": a["gen_ai.response.model"] } : {}),
    ...(record.errorType ? { "error.type": record.errorType } : {}),
  } as Record<string, string>;
  metrics.operationDuration.record((record.end.getTime() - record.start.getTime()) / 1000, common);
  if (typeof a["gen_ai.usage.input_tokens"] === "number") metrics.tokenUsage.record(a["gen_ai.usage.input_tokens"], { ...common, "gen_ai.token.type": "input" });
  if (typeof a["gen_ai.usage.output_tokens"] === "number") metrics.tokenUsage.record(a["gen_ai.usage.output_tokens"], { ...common, "gen_ai.token.type": "output" });
}
