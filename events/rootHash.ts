import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonicalJson.ts";

/** Where a stream's chain ends: its version and the hash of its last event. */
export interface StreamHead {
  streamId: string;
  version: number;
  hash: string;
}

/** Heads in streamId order (UTF-16 code units, as RFC 8785 sorts keys), so every reader computes the same root. */
export function sortHeads(heads: readonly StreamHead[]): StreamHead[] {
  return heads
    .map(({ streamId, version, hash }) => ({ streamId, version, hash }))
    .toSorted((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
}

/**
 * The root hash over a run's stream heads: sha256 of the RFC 8785 JSON of the
 * sorted [{streamId, version, hash}]. Each head's hash commits to its whole
 * chain, so the root commits to every event of every stream it lists: anyone
 * holding it can tell a later change, a rewound head or a missing stream.
 */
export function rootHashOf(heads: readonly StreamHead[]): string {
  return createHash("sha256").update(canonicalJson(sortHeads(heads))!, "utf8").digest("hex");
}
