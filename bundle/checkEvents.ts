import { type ChainLink, verifyChain } from "../events/hashChain.ts";
import { rowToEvent } from "../events/rowToEvent.ts";
import type { RecordedEvent } from "../events/types.ts";
import { parseEventLine } from "./eventLines.ts";

export interface ReadEvents {
  links: ChainLink[];
  /** Parsed and upcast, in file order; a line that does not parse is left out (and named). */
  events: RecordedEvent[];
  problems: string[];
}

/**
 * events.jsonl read back: every line an event in canonical form, in strictly
 * rising log position, of this run, each stream's versions 1..n with its chain
 * recomputed, each payload valid for its schema version.
 */
export function readEventLines(text: string, runId: string): ReadEvents {
  const problems: string[] = [];
  const links: ChainLink[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  else if (lines.length > 0) problems.push(`events.jsonl: its last line is cut off (no newline at the end): the file was truncated`);
  let last = -1;
  lines.forEach((line, i) => {
    const parsed = parseEventLine(line);
    if (!parsed.ok) return problems.push(`events.jsonl line ${i + 1}: ${parsed.reason}`);
    const link = parsed.link;
    if (link.globalPosition <= last) problems.push(`events.jsonl line ${i + 1}: position ${link.globalPosition} does not follow ${last}: the lines are out of log order`);
    last = Math.max(last, link.globalPosition);
    if ((link.metadata as { runId?: unknown }).runId !== runId) problems.push(`events.jsonl line ${i + 1}: event ${link.eventId} belongs to run ${String((link.metadata as { runId?: unknown }).runId)}, not ${runId}`);
    links.push(link);
  });

  const byStream = new Map<string, ChainLink[]>();
  for (const l of links) byStream.set(l.streamId, [...(byStream.get(l.streamId) ?? []), l]);
  for (const [streamId, stream] of byStream) {
    const chain = verifyChain(streamId, stream.toSorted((a, b) => a.streamVersion - b.streamVersion));
    if (!chain.ok) problems.push(`${streamId} v${chain.firstBad.streamVersion} (event ${chain.firstBad.eventId}): ${chain.reason}`);
  }

  const events: RecordedEvent[] = [];
  for (const l of links) {
    try {
      events.push(rowToEvent({ global_position: l.globalPosition, event_id: l.eventId, stream_id: l.streamId, stream_version: l.streamVersion, run_id: String((l.metadata as { runId?: unknown }).runId), executor_id: String((l.metadata as { executorId?: unknown }).executorId), type: l.type, schema_version: l.schemaVersion, data: l.data, metadata: l.metadata, recorded_at: l.recordedAt, prev_hash: l.prevHash, hash: l.hash }));
    } catch (e) {
      problems.push(`events.jsonl: ${(e as Error).message}`);
    }
  }
  return { links, events, problems };
}
