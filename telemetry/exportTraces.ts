import { type Meter, type Tracer, metrics as metricsApi, trace } from "@opentelemetry/api";
import type { EventStore, RecordedEvent, Subscription } from "../events/index.ts";
import { emitSpan, genAiMetrics, recordMetrics } from "./emitSpan.ts";
import type { SpanRecord } from "./spanRecord.ts";
import { type TraceState, foldTraceEvent, newTraceState, traceFinished } from "./traceFold.ts";

export interface TraceExportOptions {
  /** Default: the global tracer (whatever SDK the process installed; a no-op without one). */
  tracer?: Tracer;
  /** Default: the global meter provider's. */
  meter?: Meter;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: record messages and tool arguments and results. Default off. */
  captureContent?: boolean;
  /** Names the durable checkpoint; one per database (default `telemetry-traces`). */
  subscriptionId?: string;
  /** Called after a batch of spans is handed to the tracer, before the checkpoint moves past them (the SDK's forceFlush). */
  flush?: () => Promise<void>;
  pollMs?: number;
  /** How long the checkpoint's lease lasts without renewal: a holder that dies is taken over after this (default 30 s). */
  /** This exporter's lease owner, and how to tell a holder is dead (events/subscribe.ts SubscriptionLease): a crashed process's lease is taken over at once. */
  leaseOwner?: string;
  ownerIsDead?: (owner: string) => boolean;
  leaseMs?: number;
  onError?: (error: unknown) => void;
  /** After spans are emitted, with them (tests, logs). */
  onSpans?: (spans: SpanRecord[]) => void;
}

export interface TraceExport {
  /** Resolves once every event committed before the call has been exported. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export const TRACES_SUBSCRIPTION = "telemetry-traces";

const LEASE_MS = 30_000;

/**
 * Exports the spans of the log as it grows: a subscription with a durable
 * checkpoint folds each event into its run's trace (telemetry/traceFold.ts)
 * and emits the spans that event ends. A span is emitted once, when the
 * event that ends it is first handled, and the checkpoint is stored after
 * the flush: a restart resumes past what was exported, so starting again on
 * a log already exported emits nothing new, whichever process wrote the
 * events (a worker that took a run over, a resumed run). A crash between the
 * flush and the checkpoint re-emits that batch with the same ids (spanIds.ts),
 * which a backend takes as the same spans.
 *
 * Exporters on one store (`serve`, each `worker`, `run`) share the
 * checkpoint under a lease: one at a time exports and advances it, the others
 * wait and take over when it stops or its lease runs out, so a span is sent
 * once (again only if a holder loses its lease mid-batch, like a crash).
 *
 * A run first met mid-log (this exporter started after it, or took the lease
 * over) is caught up by folding its earlier events without emitting them: they
 * were exported by the checkpoint's earlier holder.
 */
export async function exportTraces(store: EventStore, options: TraceExportOptions = {}): Promise<TraceExport> {
  const tracer = options.tracer ?? trace.getTracer("ariadne");
  const metrics = genAiMetrics(options.meter ?? metricsApi.getMeter("ariadne"));
  const runs = new Map<string, TraceState>();

  const stateOf = async (event: RecordedEvent): Promise<TraceState> => {
    const runId = event.metadata.runId;
    const known = runs.get(runId);
    if (known) return known;
    const state = newTraceState(runId, { captureContent: options.captureContent });
    for (const earlier of await store.readRun(runId)) if (earlier.globalPosition < event.globalPosition) foldTraceEvent(state, earlier);
    runs.set(runId, state);
    return state;
  };

  const handle = async (event: RecordedEvent) => {
    const state = await stateOf(event);
    const spans = foldTraceEvent(state, event);
    for (const span of spans) {
      emitSpan(tracer, span);
      recordMetrics(metrics, span);
    }
    if (spans.length) {
      await options.flush?.();
      options.onSpans?.(spans);
    }
    // Nothing later in a finished run opens a span: its state is let go (a late fact re-reads it).
    if (traceFinished(state) && state.tools.size === 0) runs.delete(state.runId);
  };

  const subscription: Subscription = await store.subscribe({
    subscriptionId: options.subscriptionId ?? TRACES_SUBSCRIPTION,
    handle,
    pollMs: options.pollMs,
    // Taken (again): events before the checkpoint were exported elsewhere, so the folds are rebuilt from the log.
    lease: { ttlMs: options.leaseMs ?? LEASE_MS, owner: options.leaseOwner, ownerIsDead: options.ownerIsDead, onTaken: () => runs.clear() },
    onError: options.onError,
  });
  return { caughtUp: () => subscription.caughtUp(), stop: () => subscription.stop() };
}
