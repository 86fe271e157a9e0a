import { hex } from "./traceparent.ts";

/**
 * The ids the next span started will get. The OpenTelemetry API cannot be
 * told a span's id, but an SDK's tracer asks its IdGenerator for each new
 * one: an SDK installed with `plannedIdGenerator` (cli/installTelemetry.ts)
 * gives the span emitSpan planned, derived from the log, and a random id to
 * anyone else's span. Set and taken synchronously around one startSpan call.
 */
let planned: { traceId: string; spanId: string } | undefined;

export function planIds(ids: { traceId: string; spanId: string } | undefined): void {
  planned = ids;
}

/** An IdGenerator (the SDK's interface, structurally): the planned ids, else random ones. */
export const plannedIdGenerator = {
  generateTraceId: (): string => planned?.traceId ?? randomHex(16),
  generateSpanId: (): string => {
    const id = planned?.spanId;
    // The trace id is asked after the span id for a root span: keep it until then.
    if (planned) planned = { ...planned, spanId: randomHex(8) };
    return id ?? randomHex(8);
  },
};

const randomHex = (bytes: number): string => hex(crypto.getRandomValues(new Uint8Array(bytes)));
