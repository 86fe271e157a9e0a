import { textAtCodePoints } from "../handoff/locateQuote.ts";
import { sameQuote } from "../handoff/normaliseQuote.ts";
import { type RunProblem, problemAt } from "./runProblems.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * The quote checks themselves, over events and blob texts only: no store, so
 * `ariadne verify DIR` (which must load no db/ module) runs the same checks as
 * `ariadne verify RUN`.
 */

interface LoggedQuote {
  toolUseId?: unknown;
  text?: unknown;
  source?: { sha256?: unknown; charStart?: unknown; charEnd?: unknown };
}

/** Every quote of every committed handoff, with the event that holds it and its place there. */
function quotesOf(events: Map<string, RecordedEvent[]>) {
  const found: { event: RecordedEvent<"handoff_committed">; at: string; quote: LoggedQuote }[] = [];
  for (const stream of events.values()) {
    for (const e of stream) {
      if (e.type !== "handoff_committed") continue;
      const findings = Array.isArray(e.data.handoff.findings) ? (e.data.handoff.findings as { evidence?: { quotes?: unknown } }[]) : [];
      findings.forEach((f, i) => {
        const quotes = Array.isArray(f?.evidence?.quotes) ? (f.evidence.quotes as LoggedQuote[]) : [];
        quotes.forEach((quote, j) => found.push({ event: e, at: `findings[${i}].evidence.quotes[${j}]`, quote }));
      });
    }
  }
  return found;
}

/** The text blobs each tool call of each executor read or wrote, by `executorId toolUseId`. */
function blobsByCall(events: Map<string, RecordedEvent[]>): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  for (const stream of events.values()) {
    for (const e of stream) {
      if (e.type !== "tool_completed") continue;
      const key = `${e.metadata.executorId} ${e.data.toolUseId}`;
      const set = calls.get(key) ?? new Set<string>();
      for (const s of e.data.sources ?? []) set.add(s.textSha256);
      for (const a of e.data.artifacts) set.add(a.sha256);
      calls.set(key, set);
    }
  }
  return calls;
}

/**
 * A handoff's quotes, checked again from the log and the blobs: each must name
 * a blob its own tool call read or wrote, and that blob's text must hold the
 * quoted text at the recorded character offsets. `texts` holds the stored
 * text of each blob named (null when it is not stored). Pure.
 */
export function quoteProblemsIn(events: Map<string, RecordedEvent[]>, texts: ReadonlyMap<string, string | null>): RunProblem[] {
  const calls = blobsByCall(events);
  const problems: RunProblem[] = [];
  for (const { event, at, quote } of quotesOf(events)) {
    const where = `quote ${at} of the handoff of ${event.metadata.executorId}`;
    const { sha256, charStart, charEnd } = quote.source ?? {};
    if (typeof quote.text !== "string" || typeof sha256 !== "string" || typeof charStart !== "number" || typeof charEnd !== "number") {
      problems.push(problemAt(event, `${where} has no recorded text and location (blob, character offsets)`));
      continue;
    }
    if (!calls.get(`${event.metadata.executorId} ${String(quote.toolUseId)}`)?.has(sha256)) {
      problems.push(problemAt(event, `${where} names blob ${sha256}, which its tool call ${String(quote.toolUseId)} did not read or write`));
      continue;
    }
    const text = texts.get(sha256);
    if (text === null || text === undefined) continue; // a missing blob is named by the blob check
    const found = textAtCodePoints(text, charStart, charEnd);
    if (found === null || !sameQuote(found, quote.text)) {
      problems.push(problemAt(event, `${where} is not in blob ${sha256}: its text at characters ${charStart}-${charEnd} is not the quoted text`));
    }
  }
  return problems;
}

/** The blobs the run's quotes name: the texts quoteProblemsIn needs. */
export function quotedBlobs(events: Map<string, RecordedEvent[]>): Set<string> {
  return new Set(quotesOf(events).flatMap(({ quote }) => (typeof quote.source?.sha256 === "string" ? [quote.source.sha256] : [])));
}
