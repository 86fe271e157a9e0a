import type { RecordedEvent } from "../events/index.ts";
import { type ToolIntent, intentOf } from "../events/toolIntent.ts";
import { priceOf, usageCostMicros } from "../governance/prices.ts";
import { executorStreamId } from "../events/streamIds.ts";
import type { SpanRecord } from "./spanRecord.ts";
import { spanIdOf, traceIdOfRunId } from "./spanIds.ts";
import type { RunTrace } from "./traceparent.ts";

/**
 * The spans of one run, folded from its events: an `invoke_agent` span per
 * executor and hosting segment, a `chat` span per model turn, an
 * `execute_tool` span per tool call. `foldTraceEvent` returns the spans the
 * event ends; a span still open (its end not yet in the log) is never
 * returned, so an exporter never emits half a span.
 *
 * Segments: a run that loses its host (kill -9, a lost lease, an interrupt)
 * leaves each executor's open segment without an end. When the run is taken
 * up again (run_resumed) or interrupted (run_interrupted), each such segment
 * ends, at the executor's last recorded event, with error.type `interrupted`,
 * and the next segment (opened by run_resumed) links to it. A tool call keeps
 * one span across a takeover (its id is its intent's), so a re-run read is not
 * a second call, and an effect of unknown outcome ends `effect_unknown`,
 * never as executed.
 *
 * The state is mutable for speed (a run can have thousands of events); it
 * is a pure function of the events folded, in any process.
 */
export interface TraceState {
  runId: string;
  trace: RunTrace;
  executors: Map<string, ExecutorTrace>;
  /** Open tool calls by `${executorId}/${toolUseId}`. */
  tools: Map<string, OpenSpan>;
  /** Event ids folded, so an event read twice (a catch-up read, then its delivery) counts once. */
  seen: Set<string>;
  captureContent: boolean;
}

interface ExecutorTrace {
  agentId: string;
  agentName: string;
  role: string;
  model: string;
  parentSpanId?: string;
  /** The segment open now, if any. */
  segment?: OpenSpan;
  /** The span id of its latest segment, open or ended. */
  lastSegmentId?: string;
  /** The last segment ended by an interruption: the next one links to it. */
  interrupted?: string;
  finished: boolean;
  last: RecordedEvent;
}

interface OpenSpan {
  spanId: string;
  parentSpanId?: string;
  start: RecordedEvent;
  /** When the span starts, if not at `start`'s time. */
  startAt?: Date;
  attributes: SpanRecord["attributes"];
  links: string[];
  content?: Record<string, string>;
}

export function newTraceState(runId: string, options: { captureContent?: boolean } = {}): TraceState {
  return { runId, trace: { traceId: traceIdOfRunId(runId) }, executors: new Map(), tools: new Map(), seen: new Set(), captureContent: !!options.captureContent };
}

/** The trace a run_submitted event recorded (options.trace), if any. */
function recordedTrace(event: RecordedEvent<"run_submitted">): RunTrace | undefined {
  const trace = (event.data.options as { trace?: Partial<RunTrace> }).trace;
  return typeof trace?.traceId === "string" ? (trace as RunTrace) : undefined;
}

export function foldTraceEvent(s: TraceState, event: RecordedEvent): SpanRecord[] {
  if (s.seen.has(event.eventId)) return [];
  s.seen.add(event.eventId);
  const ended: SpanRecord[] = [];
  const executorId = event.metadata.executorId;
  const x = s.executors.get(executorId);
  const inExecutorStream = event.streamId === executorStreamId(executorId);
  if (x && inExecutorStream) x.last = event;

  switch (event.type) {
    case "run_submitted": {
      s.trace = recordedTrace(event) ?? s.trace;
      break;
    }
    case "executor_admitted": {
      const d = event.data;
      const parentTool = d.parentExecutorId && d.parentToolUseId ? s.tools.get(`${d.parentExecutorId}/${d.parentToolUseId}`) : undefined;
      // A delegated Child hangs under its delegate call; an executor the host starts on another's result
      // (the Checker, on Main's answer) under that executor's latest segment.
      const parentSpanId = d.parentExecutorId ? (parentTool?.spanId ?? s.executors.get(d.parentExecutorId)?.lastSegmentId) : s.trace.parentSpanId;
      const agentName = d.profile?.id ?? d.role;
      const admitted: ExecutorTrace = { agentId: executorId, agentName, role: d.role, model: d.model, parentSpanId, finished: false, last: event };
      s.executors.set(executorId, admitted);
      admitted.segment = openSegment(s, admitted, event, []);
      admitted.lastSegmentId = admitted.segment.spanId;
      break;
    }
    case "run_resumed":
    case "run_interrupted": {
      for (const e of s.executors.values()) {
        if (!e.segment) continue;
        ended.push(endSpan(s, e.segment, e, e.last, "invoke_agent", "interrupted", `the run's host stopped (${event.type})`));
        e.interrupted = e.segment.spanId;
        e.segment = undefined;
      }
      if (event.type === "run_resumed") {
        for (const e of s.executors.values()) {
          if (!e.finished && e.interrupted) {
            e.segment = openSegment(s, e, event, [e.interrupted]);
            e.lastSegmentId = e.segment.spanId;
          }
        }
      }
      break;
    }
    case "turn": {
      if (!x) break;
      const d = event.data;
      const start = new Date(event.recordedAt.getTime() - d.latencyMs);
      const span: OpenSpan = { spanId: spanIdOf(s.runId, executorId, event.eventId), parentSpanId: x.segment?.spanId, start: event, startAt: start, attributes: {}, links: [] };
      span.attributes = {
        ...agentAttributes(s, x, "chat"),
        "gen_ai.request.model": d.request.model,
        "gen_ai.response.model": d.model,
        "gen_ai.provider.name": d.provider,
        "gen_ai.usage.input_tokens": d.usage.inputTokens,
        "gen_ai.usage.output_tokens": d.usage.outputTokens,
        // Prompt cache counts (GenAI semantic conventions) and the call's price at the model's rates, cache rates included.
        ...(d.usage.cacheReadInputTokens !== undefined ? { "gen_ai.usage.cache_read.input_tokens": d.usage.cacheReadInputTokens } : {}),
        ...(d.usage.cacheCreationInputTokens !== undefined ? { "gen_ai.usage.cache_creation.input_tokens": d.usage.cacheCreationInputTokens } : {}),
        "ariadne.cost_usd": usageCostMicros(priceOf(d.model), d.usage) / 1e6,
        "gen_ai.response.finish_reasons": [d.response.stopReason],
        "ariadne.turn": d.turn,
        "ariadne.scripted": d.scripted,
        "ariadne.request.digest": d.request.digest,
        ...(d.responseId ? { "gen_ai.response.id": d.responseId } : {}),
      };
      if (s.captureContent) span.content = { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: d.response.content, finish_reason: d.response.stopReason }]) };
      ended.push(endSpan(s, span, x, event, "chat"));
      break;
    }
    case "turn_failed": {
      if (!x) break;
      const span: OpenSpan = { spanId: spanIdOf(s.runId, executorId, event.eventId), parentSpanId: x.segment?.spanId, start: event, attributes: { ...agentAttributes(s, x, "chat"), "gen_ai.request.model": x.model, "ariadne.turn": event.data.turn, "ariadne.attempt": event.data.attempt }, links: [] };
      ended.push(endSpan(s, span, x, event, "chat", event.data.kind, event.data.message));
      break;
    }
    case "tool_called": {
      if (!x) break;
      openToolSpan(s, x, executorId, intentOf(event)!, event);
      break;
    }
    case "recovered": {
      // Calls run again after a takeover keep their one span; it says so.
      for (const id of event.data.rerun) {
        const span = s.tools.get(`${executorId}/${id}`);
        if (span) span.attributes["ariadne.tool.rerun"] = true;
      }
      break;
    }
    case "tool_completed":
    case "tool_failed":
    case "effect_unknown":
    case "handoff_consumed": {
      if (!x) break;
      // A read-only call recorded in one row opens its span here and ends it at once (its run time is not in the log).
      const intent = intentOf(event);
      if (intent) openToolSpan(s, x, executorId, intent, event);
      const key = `${executorId}/${event.data.toolUseId}`;
      const span = s.tools.get(key);
      if (!span) break;
      s.tools.delete(key);
      if (event.type === "tool_completed" && s.captureContent) span.content = { ...span.content, "gen_ai.tool.call.result": event.data.output };
      if (event.type === "tool_completed" || (event.type === "handoff_consumed" && !event.data.childEnded)) {
        ended.push(endSpan(s, span, x, event, "execute_tool"));
      } else if (event.type === "tool_failed") {
        ended.push(endSpan(s, span, x, event, "execute_tool", event.data.reason, event.data.message));
      } else if (event.type === "effect_unknown") {
        span.attributes["ariadne.tool.outcome"] = "unknown";
        ended.push(endSpan(s, span, x, event, "execute_tool", "effect_unknown", event.data.note));
      } else if (event.type === "handoff_consumed") {
        ended.push(endSpan(s, span, x, event, "execute_tool", `child_${event.data.childEnded!.outcome}`, event.data.childEnded!.reason));
      }
      break;
    }
    case "settled":
    case "failed":
    case "cancelled": {
      if (!x || !x.segment || !inExecutorStream) break;
      const error = event.type === "failed" ? event.data.kind : event.type === "cancelled" ? "cancelled" : undefined;
      const message = event.type === "settled" ? undefined : event.data.reason;
      ended.push(endSpan(s, x.segment, x, event, "invoke_agent", error, message));
      x.segment = undefined;
      x.finished = true;
      break;
    }
  }
  return ended;
}

/** Main has ended (settled, failed or cancelled): nothing the run still records opens a span. */
export const traceFinished = (s: TraceState): boolean => [...s.executors.values()].some((e) => e.role === "main" && e.finished);

function openSegment(s: TraceState, x: ExecutorTrace, at: RecordedEvent, links: string[]): OpenSpan {
  return {
    spanId: spanIdOf(s.runId, x.agentId, at.eventId),
    parentSpanId: x.parentSpanId,
    start: at,
    attributes: { ...agentAttributes(s, x, "invoke_agent"), "gen_ai.request.model": x.model, "ariadne.executor.role": x.role, ...(links.length ? { "ariadne.segment.resumed": true } : {}) },
    links,
  };
}

function agentAttributes(s: TraceState, x: ExecutorTrace, operation: SpanRecord["operation"]): SpanRecord["attributes"] {
  return { "gen_ai.operation.name": operation, "gen_ai.conversation.id": s.runId, "gen_ai.agent.id": x.agentId, "gen_ai.agent.name": x.agentName };
}

const NAME_OF: Record<SpanRecord["operation"], string> = { invoke_agent: "gen_ai.agent.name", chat: "gen_ai.request.model", execute_tool: "gen_ai.tool.name" };

/** The execute_tool span of a call, opened at its intent (a tool_called, or the one row of a read-only call). */
function openToolSpan(s: TraceState, x: ExecutorTrace, executorId: string, d: ToolIntent, event: RecordedEvent): void {
  const span: OpenSpan = {
    spanId: spanIdOf(s.runId, executorId, event.eventId),
    parentSpanId: x.segment?.spanId,
    start: event,
    attributes: {
      ...agentAttributes(s, x, "execute_tool"),
      "gen_ai.tool.name": d.tool,
      "gen_ai.tool.call.id": d.toolUseId,
      "gen_ai.tool.type": "function",
      "ariadne.tool.effect": d.effect,
      ...(d.childExecutorId ? { "ariadne.child.executor_id": d.childExecutorId } : {}),
    },
    links: [],
  };
  if (s.captureContent) span.content = { "gen_ai.tool.call.arguments": JSON.stringify(d.input ?? null) };
  s.tools.set(`${executorId}/${d.toolUseId}`, span);
}

function endSpan(s: TraceState, span: OpenSpan, x: ExecutorTrace, end: RecordedEvent, operation: SpanRecord["operation"], errorType?: string, errorMessage?: string): SpanRecord {
  const start = span.startAt ?? span.start.recordedAt;
  const topLevel = !x.parentSpanId || x.parentSpanId === s.trace.parentSpanId;
  return {
    name: `${operation} ${span.attributes[NAME_OF[operation]]}`,
    operation,
    kind: operation === "chat" ? "client" : "internal",
    traceId: s.trace.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    parentIsRemote: operation === "invoke_agent" && x.role === "main" && topLevel && !!span.parentSpanId,
    sampled: s.trace.sampled ?? true,
    start,
    // An end before its start (clocks of two hosts) would be refused by a backend.
    end: end.recordedAt < start ? start : end.recordedAt,
    attributes: {
      ...span.attributes,
      "ariadne.event.start.position": span.start.globalPosition,
      "ariadne.event.start.hash": span.start.hash,
      "ariadne.event.end.position": end.globalPosition,
      "ariadne.event.end.hash": end.hash,
      ...(errorType ? { "error.type": errorType } : {}),
    },
    errorType,
    errorMessage,
    links: span.links,
    content: span.content,
  };
}
