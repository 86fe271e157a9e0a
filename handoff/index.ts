export { extractCitationMarkers, isCitationMarker } from "./citationMarkers.ts";
export {
  classifyArtifact,
  classifyReference,
  type ArtifactVerdict,
  type RefField,
  type RefVerdict,
} from "./classifyReference.ts";
export type { HandoffFacts } from "./handoffFacts.ts";
export {
  ArtifactRefSchema,
  Confidence,
  EvidenceSchema,
  ExecutionState,
  FindingSchema,
  HandoffSchema,
  MeasurementBasisSchema,
  SUMMARY_MAX,
  type Finding,
  type Handoff,
} from "./handoffSchema.ts";
export { EXCERPT_CHARS, type GatheredResult, gatheredFindings } from "./gatheredFindings.ts";
export { HANDOFF_TOOL, handoffInputSchema, handoffToolSpec, handoffToolSpecFor } from "./handoffToolSpec.ts";
export { markUnknownEffects, type UnknownEffect } from "./markUnknownEffects.ts";
export { partialHandoff } from "./partialHandoff.ts";
export { repairFeedback } from "./repairFeedback.ts";
export { reviewReferences, type HandoffIssue, type HandoffIssueKind, type KeptReference } from "./reviewReferences.ts";
export { salvageHandoff } from "./salvageHandoff.ts";
export { validateHandoff, type HandoffVerdict } from "./validateHandoff.ts";
