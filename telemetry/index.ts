export { type TraceExport, type TraceExportOptions, TRACES_SUBSCRIPTION, exportTraces } from "./exportTraces.ts";
export { type RunTrace, newTraceId, traceOfTraceparent } from "./traceparent.ts";
export { type TraceState, foldTraceEvent, newTraceState } from "./traceFold.ts";
export type { SpanRecord } from "./spanRecord.ts";
export { emitSpan, genAiMetrics, recordMetrics } from "./emitSpan.ts";
export { plannedIdGenerator } from "./plannedIds.ts";
export { spanIdOf } from "./spanIds.ts";
