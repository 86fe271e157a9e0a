import { isCitationMarker } from "./citationMarkers.ts";
import type { HandoffFacts } from "./handoffFacts.ts";

export type RefField = "toolResults" | "citations";

export type RefVerdict =
  | { kind: "valid" }
  /** The right kind of evidence in the wrong field; validThere says whether moving it fixes it. */
  | { kind: "misplaced"; belongsIn: RefField; validThere: boolean }
  | { kind: "unknown_tool_result" }
  | { kind: "unseen_citation" }
  | { kind: "not_a_citation" };

/** Decides what one evidence reference is, given the field it was put in. */
export function classifyReference(ref: string, field: RefField, facts: HandoffFacts): RefVerdict {
  if (field === "toolResults") {
    if (facts.toolResultIds.has(ref)) return { kind: "valid" };
    if (isCitationMarker(ref)) return { kind: "misplaced", belongsIn: "citations", validThere: facts.citationsSeen.has(ref) };
    return { kind: "unknown_tool_result" };
  }
  if (isCitationMarker(ref)) return facts.citationsSeen.has(ref) ? { kind: "valid" } : { kind: "unseen_citation" };
  if (facts.toolResultIds.has(ref)) return { kind: "misplaced", belongsIn: "toolResults", validThere: true };
  return { kind: "not_a_citation" };
}

export type ArtifactVerdict =
  | { kind: "valid" }
  | { kind: "unproduced" }
  | { kind: "mismatch"; recorded: { path: string; sha256: string } };

export function classifyArtifact(a: { id: string; path: unknown; sha256: unknown }, facts: HandoffFacts): ArtifactVerdict {
  const recorded = facts.artifacts.get(a.id);
  if (!recorded) return { kind: "unproduced" };
  if (recorded.path !== a.path || recorded.sha256 !== a.sha256) return { kind: "mismatch", recorded };
  return { kind: "valid" };
}
