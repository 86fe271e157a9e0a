/**
 * A run's place in a trace: the W3C trace id every span of the run carries,
 * and the caller's span its Main hangs under when the submitter sent one.
 * Recorded with the run (run_submitted's options.trace), so every host of the
 * run, whichever worker takes it over, continues the same trace.
 */
export interface RunTrace {
  traceId: string;
  /** The submitter's span (from its `traceparent`): Main's first span is its child. */
  parentSpanId?: string;
  /** The submitter's sampled flag; absent means sampled. */
  sampled?: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/**
 * The trace a W3C `traceparent` header names, or undefined when there is none
 * or it does not parse: as the W3C spec asks, an invalid header is ignored and
 * the run starts a trace of its own (a malformed header is not the caller's
 * question being wrong).
 */
export function traceOfTraceparent(header: string | undefined): RunTrace | undefined {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!match) return undefined;
  const [, version, traceId, parentSpanId, flags, rest] = match;
  // Version ff is invalid; version 00 allows nothing after the flags.
  if (version === "ff" || (version === "00" && rest) || ZEROS.test(traceId) || ZEROS.test(parentSpanId)) return undefined;
  return { traceId, parentSpanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** A fresh random trace id (16 bytes, lowercase hex). */
export function newTraceId(): string {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

export const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
