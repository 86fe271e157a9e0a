/** A span as the log gives it: every time, id and link comes from recorded events. */
export interface SpanRecord {
  /** `invoke_agent {agent}`, `chat {model}` or `execute_tool {tool}` (the GenAI conventions' span names). */
  name: string;
  operation: "invoke_agent" | "chat" | "execute_tool";
  kind: "internal" | "client";
  traceId: string;
  spanId: string;
  /** The parent span's id; undefined for a root span. */
  parentSpanId?: string;
  /** The parent is the submitter's span (from its traceparent), not one of the run's. */
  parentIsRemote?: boolean;
  sampled: boolean;
  start: Date;
  end: Date;
  attributes: Record<string, string | number | boolean | string[]>;
  /** Set for an error status: the conventions' `error.type` (`interrupted`, `effect_unknown`, a failure's kind). */
  errorType?: string;
  errorMessage?: string;
  /** Span ids this span links to (a resumed segment: the segment it continues). */
  links: string[];
  /** Only when content capture is on: the conventions' message attributes. */
  content?: Record<string, string>;
}
