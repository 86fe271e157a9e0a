import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonicalJson.ts";

/** The hash that precedes the first event of every stream. */
export const GENESIS_HASH = "0".repeat(64);

/** The fields of an event that its hash covers: everything but its global position. */
export interface HashedFields {
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
  recordedAt: string;
}

/** RFC 8785 (JCS) canonical JSON of an event's hashed fields. */
export function canonicalEvent(fields: HashedFields): string {
  const text = canonicalJson(fields);
  if (text === undefined) throw new TypeError("event has no JSON form");
  return text;
}

export function chainHash(prevHash: string, canonical: string): string {
  return createHash("sha256").update(prevHash + canonical, "utf8").digest("hex");
}

/** What the chain needs of a stored event: its hashed fields as stored, its links and its position. */
export interface ChainLink extends Omit<HashedFields, "recordedAt"> {
  recordedAt: Date;
  globalPosition: number;
  prevHash: string;
  hash: string;
}

export type VerifyResult =
  | { ok: true; streamId: string; count: number; lastHash: string }
  | {
      ok: false;
      streamId: string;
      /** The first event whose stored hash or link does not match its recomputation. */
      firstBad: { streamVersion: number; eventId: string; globalPosition: number };
      reason: string;
    };

/**
 * Recomputes a stream's chain from its events (in version order) and names the
 * first mismatch. The events must carry the payloads as stored, not upcast.
 */
export function verifyChain(streamId: string, events: readonly ChainLink[]): VerifyResult {
  let prev = GENESIS_HASH;
  for (const [i, e] of events.entries()) {
    const bad = (reason: string): VerifyResult => ({
      ok: false,
      streamId,
      firstBad: { streamVersion: e.streamVersion, eventId: e.eventId, globalPosition: e.globalPosition },
      reason,
    });
    if (e.streamVersion !== i + 1) return bad(`version ${e.streamVersion} where ${i + 1} was expected`);
    if (e.prevHash !== prev) return bad("link to the previous event's hash is broken");
    const expected = chainHash(prev, canonicalEvent(hashedFieldsOf(e)));
    if (expected !== e.hash) return bad("content does not match its stored hash");
    prev = e.hash;
  }
  return { ok: true, streamId, count: events.length, lastHash: prev };
}

export function hashedFieldsOf(e: ChainLink): HashedFields {
  return {
    eventId: e.eventId,
    streamId: e.streamId,
    streamVersion: e.streamVersion,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    recordedAt: e.recordedAt.toISOString(),
  };
}
