import { canonicalJson } from "../core/canonicalJson.ts";
import type { ChainLink, HashedFields } from "../events/hashChain.ts";

/**
 * One line of events.jsonl: an event exactly as stored (its payload at the
 * schema version it was written with, never upcast), with its place in the log
 * and its chain links. Written as RFC 8785 canonical JSON, so the line's bytes
 * are a function of its content and a reader can recompute every hash.
 */
export interface EventLine extends HashedFields {
  globalPosition: number;
  prevHash: string;
  hash: string;
}

export function eventLine(link: ChainLink): string {
  const line: EventLine = {
    eventId: link.eventId,
    streamId: link.streamId,
    streamVersion: link.streamVersion,
    type: link.type,
    schemaVersion: link.schemaVersion,
    data: link.data,
    metadata: link.metadata,
    recordedAt: link.recordedAt.toISOString(),
    globalPosition: link.globalPosition,
    prevHash: link.prevHash,
    hash: link.hash,
  };
  return canonicalJson(line)!;
}

const HEX64 = /^[0-9a-f]{64}$/;
const STRING_FIELDS = ["eventId", "streamId", "type", "recordedAt", "prevHash", "hash"] as const;
const INT_FIELDS = ["streamVersion", "schemaVersion", "globalPosition"] as const;
const LINE_FIELDS = new Set<string>([...STRING_FIELDS, ...INT_FIELDS, "data", "metadata"]);

/**
 * Reads one line back: JSON, in canonical form, with every field of an event.
 * Returns the link for chain verification, or why the line cannot be one.
 */
export function parseEventLine(text: string): { ok: true; link: ChainLink } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `is not JSON (${(e as Error).message})` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, reason: "is not a JSON object" };
  const v = value as Record<string, unknown>;
  for (const f of STRING_FIELDS) if (typeof v[f] !== "string") return { ok: false, reason: `has no string ${f}` };
  for (const f of INT_FIELDS) if (!Number.isSafeInteger(v[f]) || (v[f] as number) < 0) return { ok: false, reason: `has no whole number ${f}` };
  const unknown = Object.keys(v).find((k) => !LINE_FIELDS.has(k));
  if (unknown) return { ok: false, reason: `has a field ${JSON.stringify(unknown)} no event line has (nothing its hash covers)` };
  if (!("data" in v) || !v.metadata || typeof v.metadata !== "object") return { ok: false, reason: "has no data or metadata" };
  if (!HEX64.test(v.hash as string) || !HEX64.test(v.prevHash as string)) return { ok: false, reason: "has a hash that is not 64 hex characters" };
  const recordedAt = new Date(v.recordedAt as string);
  if (Number.isNaN(recordedAt.getTime()) || recordedAt.toISOString() !== v.recordedAt) return { ok: false, reason: `has recordedAt "${String(v.recordedAt)}", not an ISO 8601 time as hashed` };
  if (canonicalJson(v) !== text) return { ok: false, reason: "is not in RFC 8785 canonical form (its bytes were rewritten)" };
  const line = v as unknown as EventLine;
  return {
    ok: true,
    link: {
      eventId: line.eventId,
      streamId: line.streamId,
      streamVersion: line.streamVersion,
      type: line.type,
      schemaVersion: line.schemaVersion,
      data: line.data,
      metadata: line.metadata,
      recordedAt,
      globalPosition: line.globalPosition,
      prevHash: line.prevHash,
      hash: line.hash,
    },
  };
}
